module example.com/p51goroutinedone

go 1.26
