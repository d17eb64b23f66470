package history

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Every field of Contract has its row, and each row's Of is that field:
// a field added to the struct without a row fails here.
func TestContractFieldsCoverTheStruct(t *testing.T) {
	typ := reflect.TypeFor[Contract]()
	if typ.NumField() != len(ContractFields) {
		t.Fatalf("Contract has %d fields, ContractFields %d rows", typ.NumField(), len(ContractFields))
	}
	for i := range typ.NumField() {
		sf := typ.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := LookupContractField(name)
		if f == nil {
			t.Errorf("Contract.%s (json %q) has no ContractFields row", sf.Name, name)
			continue
		}
		if y, _, _ := strings.Cut(sf.Tag.Get("yaml"), ","); y != name {
			t.Errorf("Contract.%s: yaml name %q, json %q", sf.Name, y, name)
		}
		var c Contract
		*f.Of(&c) = "x"
		if got := reflect.ValueOf(c).Field(i).String(); got != "x" {
			t.Errorf("row %s: Of sets another field than Contract.%s", name, sf.Name)
		}
		if f.Flag != strings.ReplaceAll(name, "_", "-") || f.Prose == "" || len(f.Values) < 2 {
			t.Errorf("row %s: flag %q, prose %q, %d values", name, f.Flag, f.Prose, len(f.Values))
		}
		if !f.Allows(f.Default) || f.DefaultWithEvents != "" && !f.Allows(f.DefaultWithEvents) {
			t.Errorf("row %s: default %q / %q is not one of its values", name, f.Default, f.DefaultWithEvents)
		}
		for _, v := range f.Values {
			if v.Name == "" || v.Gloss == "" {
				t.Errorf("row %s: value %+v lacks its name or gloss", name, v)
			}
		}
	}
}

// Every value of every field goes through the recorder's header and back,
// and a value no row allows is refused by the writer and the reader, the
// reader naming the field.
func TestEveryContractValueRoundTripsThroughTheHeader(t *testing.T) {
	for _, f := range ContractFields {
		for _, v := range f.ValueNames() {
			var c Contract
			*f.Of(&c) = v
			var buf bytes.Buffer
			rec, err := NewRecorder(&buf, Header{Contract: c}, 0)
			if err != nil {
				t.Fatalf("%s %s: %v", f.Name, v, err)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			if want := `"contract":{"` + f.Name + `":"` + v + `"}`; !strings.Contains(buf.String(), want) {
				t.Errorf("%s %s written as %s", f.Name, v, buf.String())
			}
			h := mustRead(t, buf.String())
			if h.Header.Contract != c {
				t.Errorf("%s %s read back as %+v", f.Name, v, h.Header.Contract)
			}
		}
		var c Contract
		*f.Of(&c) = "bogus"
		if _, err := NewRecorder(&bytes.Buffer{}, Header{Contract: c}, 0); err == nil || !strings.Contains(err.Error(), "contract "+f.Name+" must be") {
			t.Errorf("recorder with %s bogus: %v", f.Name, err)
		}
		_, err := Read(strings.NewReader(`{"format":"chatseq-history","version":1,"contract":{"`+f.Name+`":"bogus"}}`+"\n"), "c.jsonl")
		if want := `"contract.` + f.Name + `" must be ` + f.Choices(true, "or") + `, got "bogus"`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reading %s bogus: %v, want %s", f.Name, err, want)
		}
		_, err = Read(strings.NewReader(`{"format":"chatseq-history","version":1,"contract":{"`+f.Name+`":"`+f.Default+`","`+f.Name+`":"`+f.Default+`"}}`+"\n"), "c.jsonl")
		if err == nil || !strings.Contains(err.Error(), "duplicate contract field") {
			t.Errorf("reading %s twice: %v", f.Name, err)
		}
	}
	_, err := Read(strings.NewReader(`{"format":"chatseq-history","version":1,"contract":{"speed":"fast"}}`+"\n"), "c.jsonl")
	if err == nil || !strings.Contains(err.Error(), "expected "+ContractFieldNames()) {
		t.Errorf("an unknown contract field: %v", err)
	}
}

// Shards agree on a field they state alike, and disagree on a field they
// state differently or that one states and the other leaves out (taken
// from the one stating it, it judged the other's chats): every field.
func TestShardContractsAgreeFieldByField(t *testing.T) {
	for _, f := range ContractFields {
		var a, b Contract
		*f.Of(&a) = f.Values[0].Name
		if _, err := a.agree(b); err == nil || !strings.Contains(err.Error(), f.Name+" "+f.Values[0].Name+" vs not stated") {
			t.Errorf("%s stated by one shard only: %v", f.Name, err)
		}
		if _, err := b.agree(a); err == nil || !strings.Contains(err.Error(), f.Name+" not stated vs "+f.Values[0].Name) {
			t.Errorf("%s stated by the other shard only: %v", f.Name, err)
		}
		*f.Of(&b) = f.Values[0].Name
		if got, err := a.agree(b); err != nil || got != a {
			t.Errorf("%s stated alike: %+v, %v", f.Name, got, err)
		}
		*f.Of(&b) = f.Values[1].Name
		if _, err := a.agree(b); err == nil || !strings.Contains(err.Error(), f.Name+" "+f.Values[0].Name+" vs "+f.Values[1].Name) {
			t.Errorf("%s stated differently merged: %v", f.Name, err)
		}
	}
}

// Over puts every field one contract states over another's.
func TestContractOverEveryField(t *testing.T) {
	for _, f := range ContractFields {
		var base, over Contract
		for _, g := range ContractFields {
			*g.Of(&base) = g.Values[0].Name
		}
		*f.Of(&over) = f.Values[1].Name
		got := over.Over(base)
		for _, g := range ContractFields {
			want := g.Values[0].Name
			if g.Name == f.Name {
				want = g.Values[1].Name
			}
			if v := *g.Of(&got); v != want {
				t.Errorf("%s over: %s is %q, want %q", f.Name, g.Name, v, want)
			}
		}
	}
}
