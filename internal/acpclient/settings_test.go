package acpclient

import (
	"fmt"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// A grouped select's values are flattened in order; a boolean option reads
// "true"/"false"; a command's unstructured input is its hint.
func TestAgentOptionsAndCommands(t *testing.T) {
	cat := sdk.SessionConfigOptionCategoryModel
	groups := sdk.SessionConfigSelectOptionsGrouped{
		{Name: "fast", Options: []sdk.SessionConfigSelectOption{{Name: "a", Value: "m-a"}}},
		{Name: "slow", Options: []sdk.SessionConfigSelectOption{{Name: "b", Value: "m-b"}, {Name: "c", Value: "m-c"}}},
	}
	got := agentOptions([]sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: "model", Name: "Model", Category: &cat, CurrentValue: "m-b", Options: sdk.SessionConfigSelectOptions{Grouped: &groups}}},
		{Boolean: &sdk.SessionConfigOptionBoolean{Id: "web", Name: "Web", CurrentValue: true}},
		{},
	})
	want := "[{model Model model m-b [m-a m-b m-c]} {web Web  true [false true]}]"
	if fmt.Sprint(got) != want {
		t.Errorf("agentOptions = %v, want %s", got, want)
	}
	cmds := agentCommands([]sdk.AvailableCommand{{Name: "init", Description: "d"},
		{Name: "find", Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "what"}}}})
	if fmt.Sprint(cmds) != "[{init d } {find  what}]" {
		t.Errorf("agentCommands = %v", cmds)
	}
}
