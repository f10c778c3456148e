package proc

import (
	"os"
	"slices"
	"strings"
)

// secretSuffixes end the names of variables that hold credentials. The
// list is deliberately broad: a tool that needs one of them in a
// sandboxed command is rarer than a key that leaks to the model.
var secretSuffixes = []string{
	"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY",
	"_ACCESS_KEY", "_SECRET_ACCESS_KEY", "_PASSWORD", "_PASSWD", "_CREDENTIALS",
}

// IsSecretEnv reports whether a variable of this name never reaches a
// child: AGENTLS_API_KEY, OPENAI_API_KEY, and (case-insensitively) any
// name ending in _API_KEY, _APIKEY, _TOKEN, _SECRET, _SECRET_KEY,
// _ACCESS_KEY, _SECRET_ACCESS_KEY, _PASSWORD, _PASSWD or _CREDENTIALS.
func IsSecretEnv(name string) bool {
	u := strings.ToUpper(name)
	if u == "AGENTLS_API_KEY" || u == "OPENAI_API_KEY" {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// CleanEnv returns env (os.Environ() when nil) without the variables
// IsSecretEnv names, without any variable whose value contains one of the
// non-empty secrets (a key read from a config file and exported under
// another name) or the value of a variable IsSecretEnv names (LLM_KEY set
// to $OPENAI_API_KEY), and with later duplicates winning. It never
// modifies env.
func CleanEnv(env []string, secrets []string) []string {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		// Values this short would match too much; no key is.
		if name, val, ok := strings.Cut(kv, "="); ok && IsSecretEnv(name) && len(val) >= 8 {
			secrets = append(secrets[:len(secrets):len(secrets)], val)
		}
	}
	out := make([]string, 0, len(env))
	index := map[string]int{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" || IsSecretEnv(name) || holdsSecret(val, secrets) {
			continue
		}
		if i, dup := index[name]; dup {
			out[i] = kv
			continue
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	return out
}

func holdsSecret(val string, secrets []string) bool {
	for _, s := range secrets {
		if s != "" && strings.Contains(val, s) {
			return true
		}
	}
	return false
}

// lookupEnv is the last value of name in env.
func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// socketVars name the user's agents and servers by socket (or by an
// address the sandbox's own /tmp and /run no longer hold): a sandboxed
// command gets none of them, whatever they hold.
var socketVars = map[string]bool{
	"SSH_AUTH_SOCK": true, "SSH_AGENT_PID": true, "SSH_ASKPASS": true, "GIT_ASKPASS": true, "SUDO_ASKPASS": true,
	"GPG_AGENT_INFO": true, "GNOME_KEYRING_CONTROL": true, "GNOME_KEYRING_PID": true, "KRB5CCNAME": true,
	"DOCKER_HOST": true, "DOCKER_CONTEXT": true, "CONTAINER_HOST": true, "PODMAN_HOST": true,
	"XDG_RUNTIME_DIR": true, "WAYLAND_DISPLAY": true, "DISPLAY": true, "XAUTHORITY": true, "PULSE_SERVER": true,
	"TMUX": true, "TMUX_PANE": true, "STY": true, "KITTY_LISTEN_ON": true, "WEZTERM_UNIX_SOCKET": true,
	"ALACRITTY_SOCKET": true, "SWAYSOCK": true, "I3SOCK": true, "HYPRLAND_INSTANCE_SIGNATURE": true,
	"NVIM": true, "NVIM_LISTEN_ADDRESS": true, "EMACS_SOCKET_NAME": true, "VSCODE_IPC_HOOK": true,
	"VSCODE_IPC_HOOK_CLI": true, "VSCODE_GIT_IPC_HANDLE": true, "VSCODE_GIT_ASKPASS_MAIN": true,
	"VSCODE_GIT_ASKPASS_NODE": true, "JETBRAINS_IDE_SOCKET": true, "SYSTEMD_EXEC_PID": true, "NOTIFY_SOCKET": true,
	"INVOCATION_ID": true, "JOURNAL_STREAM": true, "MANAGERPID": true, "LISTEN_FDS": true, "LISTEN_PID": true,
}

// IsSocketEnv reports whether a variable of this name is a road to one of
// the user's agents (ssh-agent, gpg-agent, Docker, D-Bus, the session's
// runtime directory, the terminal multiplexer, the editor's server), which
// no sandboxed command gets: every name of socketVars and every DBUS_*.
func IsSocketEnv(name string) bool {
	u := strings.ToUpper(name)
	return socketVars[u] || strings.HasPrefix(u, "DBUS_")
}

// sandboxEnv is env for a sandboxed command: without the socket variables,
// and with TMPDIR (and its kin) naming the command's private /tmp.
func sandboxEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case IsSocketEnv(name):
		case name == "TMPDIR", name == "TEMP", name == "TMP", name == "TEMPDIR":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR=/tmp")
}

// socketEnvNames are the socket variables env holds, sorted.
func socketEnvNames(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); IsSocketEnv(name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
