module example.com/capgo

go 1.26
