package account

import (
	"reflect"
	"testing"
)

func TestNames(t *testing.T) {
	n := "assets:bank:checking"
	if Depth(n) != 3 || Parent(n) != "assets:bank" || Leaf(n) != "checking" {
		t.Errorf("depth %d parent %q leaf %q", Depth(n), Parent(n), Leaf(n))
	}
	if got := Ancestors(n); !reflect.DeepEqual(got, []string{"assets", "assets:bank"}) {
		t.Errorf("ancestors %v", got)
	}
	if Clip(n, 2) != "assets:bank" || Clip(n, 0) != n || Clip(n, 5) != n {
		t.Error("clip")
	}
	if !IsUnder(n, "assets") || IsUnder("assetsx:y", "assets") {
		t.Error("IsUnder")
	}
	if Normalize(" assets : bank ") != "assets:bank" {
		t.Error("normalize")
	}
}
