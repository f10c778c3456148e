module example.com/capvet

go 1.26
