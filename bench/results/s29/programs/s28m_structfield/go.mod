module example.com/s28m_structfield

go 1.26
