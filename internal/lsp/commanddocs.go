package lsp

import (
	"reflect"
	"strings"
)

// CommandDoc is one workspace/executeCommand command as the reference page
// (docs/reference/commands.md) shows it, from the command table.
type CommandDoc struct {
	Name string
	Args string // the documented shape, "{taskId?}"
	// Fields are the JSON fields its argument object may have, from the
	// struct the arguments decode into (unknown fields are an error);
	// Args says which are optional ("name?").
	Fields []ArgField
	Doc    string // Markdown
	// Debug: offered only with the test hook "debug".
	Debug bool
}

// ArgField is one field of a command's argument object.
type ArgField struct {
	Name string
	Type string // string, integer, boolean, Range, …
}

// CommandDocs lists every command in the table's order, the debug ones
// last.
func CommandDocs() []CommandDoc {
	var out []CommandDoc
	for i, cs := range [][]command{commands, debugCommands} {
		for _, c := range cs {
			out = append(out, CommandDoc{Name: c.name, Args: c.args, Fields: argFields(c.argType), Doc: c.doc, Debug: i == 1})
		}
	}
	return out
}

func argFields(t reflect.Type) []ArgField {
	var out []ArgField
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out = append(out, ArgField{Name: name, Type: typeName(ft)})
	}
	return out
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "list of " + typeName(t.Elem())
	}
	return t.Name()
}
