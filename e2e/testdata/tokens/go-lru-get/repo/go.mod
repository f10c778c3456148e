module example.com/golruget

go 1.22
