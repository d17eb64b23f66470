package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// Frames validates the push channel's frames against docs/asyncapi.yaml:
// each message the document names, by its name (messages, ack), against
// the JSON schema of its payload.
type Frames struct {
	payloads map[string]*openapi3.Schema
}

// LoadFrames reads docs/asyncapi.yaml, checks that it is an AsyncAPI 3.0
// document whose operations, channels and messages resolve, and compiles
// its payload schemas (kin-openapi's JSON-schema validation: the schemas
// keep to what OpenAPI 3.0 and AsyncAPI's schema format share).
func LoadFrames(t testing.TB) *Frames {
	t.Helper()
	path := filepath.Join(filepath.Dir(SpecPath(t)), "asyncapi.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	f, err := compileFrames(doc)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

func compileFrames(doc map[string]any) (*Frames, error) {
	if v := doc["asyncapi"]; v != "3.0.0" {
		return nil, fmt.Errorf("asyncapi is %v, want 3.0.0", v)
	}
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	// The schemas compile as an OpenAPI document's components: AsyncAPI's
	// "#/components/schemas/X" references mean the same there.
	wrapper, err := json.Marshal(map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "frames", "version": "1"},
		"paths": map[string]any{}, "components": map[string]any{"schemas": schemas},
	})
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	api, err := loader.LoadFromData(wrapper)
	if err != nil {
		return nil, fmt.Errorf("components.schemas: %w", err)
	}
	if err := api.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("components.schemas: %w", err)
	}
	f := &Frames{payloads: map[string]*openapi3.Schema{}}
	ops, _ := doc["operations"].(map[string]any)
	if len(ops) == 0 {
		return nil, fmt.Errorf("no operations")
	}
	for name, op := range ops {
		o, _ := op.(map[string]any)
		if a := o["action"]; a != "send" && a != "receive" {
			return nil, fmt.Errorf("operation %s: action %v, want send or receive", name, a)
		}
		if _, err := resolve(doc, refOf(o["channel"])); err != nil {
			return nil, fmt.Errorf("operation %s: channel: %w", name, err)
		}
		msgs, _ := o["messages"].([]any)
		if len(msgs) == 0 {
			return nil, fmt.Errorf("operation %s names no message", name)
		}
		for _, m := range msgs {
			msg, err := resolve(doc, refOf(m))
			if err != nil {
				return nil, fmt.Errorf("operation %s: %w", name, err)
			}
			mm, _ := msg.(map[string]any)
			msgName, _ := mm["name"].(string)
			schemaRef := refOf(mm["payload"])
			const prefix = "#/components/schemas/"
			if msgName == "" || !strings.HasPrefix(schemaRef, prefix) {
				return nil, fmt.Errorf("operation %s: a message needs a name and a payload $ref into %s", name, prefix)
			}
			ref := api.Components.Schemas[strings.TrimPrefix(schemaRef, prefix)]
			if ref == nil || ref.Value == nil {
				return nil, fmt.Errorf("operation %s: %s does not resolve", name, schemaRef)
			}
			f.payloads[msgName] = ref.Value
		}
	}
	return f, nil
}

func refOf(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["$ref"].(string)
	return s
}

// resolve follows a local JSON pointer ("#/a/b") through doc.
func resolve(doc map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("%q is not a local $ref", ref)
	}
	var cur any = doc
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok || m[part] == nil {
			return nil, fmt.Errorf("%s does not resolve", ref)
		}
		cur = m[part]
		if r := refOf(cur); r != "" {
			next, err := resolve(doc, r)
			if err != nil {
				return nil, err
			}
			cur = next
		}
	}
	return cur, nil
}

// Validate checks one frame against the payload of the message named name.
func (f *Frames) Validate(name string, frame []byte) error {
	schema := f.payloads[name]
	if schema == nil {
		return fmt.Errorf("docs/asyncapi.yaml has no message %q", name)
	}
	var v any
	if err := json.Unmarshal(frame, &v); err != nil {
		return fmt.Errorf("a %s frame that is not JSON: %w", name, err)
	}
	if err := schema.VisitJSON(v); err != nil {
		return fmt.Errorf("a %s frame %.200s: %w", name, frame, err)
	}
	return nil
}
