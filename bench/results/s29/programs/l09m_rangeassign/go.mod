module example.com/l09m_rangeassign

go 1.26
