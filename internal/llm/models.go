package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/textcut"
)

// ListModels asks an OpenAI-compatible endpoint for the models it serves
// (GET baseURL/models), sorted: what a model picker offers (the ACP
// session's model option; lsp's agentls.models does the same). The key
// never appears in an error; ctx bounds the request.
func ListModels(ctx context.Context, baseURL, key string) ([]string, error) {
	if baseURL == "" {
		return nil, fmt.Errorf("llm.baseURL is not set")
	}
	u := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("bad llm.baseURL %q: %v", baseURL, err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		// What the server says, cut: the caller redacts the key from it.
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = textcut.Head(msg, 200) + "…"
		}
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, msg)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s: not a model list: %v", u, err)
	}
	names := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			names = append(names, m.ID)
		}
	}
	sort.Strings(names)
	return names, nil
}
