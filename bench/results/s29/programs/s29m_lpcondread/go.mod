module example.com/s29m_lpcondread

go 1.26
