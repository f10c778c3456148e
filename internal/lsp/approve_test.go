package lsp

import "testing"

// A client that did not announce window/showMessageRequest is never sent
// one: the policy approver and the ACP bridge both get no way to ask, and
// refuse what needs a question.
func TestAskOnlyWhenTheClientCan(t *testing.T) {
	s := newServer(Options{Getenv: func(string) string { return "" }})
	if s.asker.ask() != nil {
		t.Error("a client without showMessageRequest would be asked")
	}
	s.ed.caps.showMessageReq = true
	if s.asker.ask() == nil {
		t.Error("a client with showMessageRequest is never asked")
	}
}
