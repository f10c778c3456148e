package main

import "testing"

func TestOK(t *testing.T) {}
