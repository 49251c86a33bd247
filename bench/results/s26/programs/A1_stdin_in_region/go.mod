module example.com/stdinregion

go 1.26
