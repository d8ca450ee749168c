package schema

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// A client payload is decoded into its lmp type off the validator's tree
// as encoding/json decodes it (lmp.DecodeClientPayload): members in order,
// the last of a repeated key winning, null clearing a pointer and leaving
// any other field as it was, an object decoded into the struct already
// there, unknown members ignored. Keys are matched exactly: a tree is only
// kept for a frame without a key lmp.Unmarshal would drop (foreignKey), and
// every other key is lower-case ASCII, where encoding/json's case-folding
// match is the exact one.
//
// Wherever encoding/json would fail or could read a value otherwise (a
// value of another kind than its field's, a number that is no integer of
// the field's size, a field kind this file does not model), the tree is
// not used: decodeFields reports false and lmp.DecodeClientPayload
// decides, with its own error.

// fieldPlan is how one struct field is decoded.
type fieldPlan struct {
	key   string // the field's JSON name
	index int
	kind  reflect.Kind // of the field, or of what it points to
	ptr   bool
	bits  int         // an integer's size
	sub   []fieldPlan // a struct's fields
}

// payloadPlans maps each client frame type to the plan of its payload's
// fields; a type whose payload has a field kind not modelled here maps to
// nil, and is always left to encoding/json.
var payloadPlans = sync.OnceValue(func() map[string][]fieldPlan {
	plans := map[string][]fieldPlan{}
	for _, typ := range lmp.ClientTypes {
		rt, ok := lmp.ClientPayloadType(typ)
		if !ok {
			continue
		}
		plan, ok := planFields(rt)
		if !ok {
			plan = nil
		}
		plans[typ] = plan
	}
	return plans
})

// decodesItself reports whether encoding/json would let values of type rt
// decode themselves.
func decodesItself(rt reflect.Type) bool {
	pt := reflect.PointerTo(rt)
	return pt.Implements(reflect.TypeFor[json.Unmarshaler]()) || pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// planFields plans the fields of struct type rt, or reports false for a
// field it cannot decode as encoding/json does.
func planFields(rt reflect.Type) ([]fieldPlan, bool) {
	if decodesItself(rt) {
		return nil, false
	}
	plan := []fieldPlan{} // a struct without fields still has a plan
	for i := range rt.NumField() {
		sf := rt.Field(i)
		if !sf.IsExported() || sf.Anonymous {
			return nil, false
		}
		key, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if key == "" || key == "-" || strings.ToLower(key) != key || slices.Contains(strings.Split(opts, ","), "string") {
			return nil, false
		}
		p := fieldPlan{key: key, index: i}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			p.ptr, ft = true, ft.Elem()
		}
		p.kind = ft.Kind()
		switch p.kind {
		case reflect.String:
		case reflect.Int, reflect.Int64, reflect.Int32:
			p.bits = ft.Bits()
		case reflect.Struct:
			if p.ptr {
				return nil, false
			}
			sub, ok := planFields(ft)
			if !ok {
				return nil, false
			}
			p.sub = sub
		default:
			return nil, false
		}
		if ft.PkgPath() != "" && ft.Name() != "" && p.kind != reflect.Struct || decodesItself(ft) {
			return nil, false
		}
		plan = append(plan, p)
	}
	return plan, true
}

// clientPayload decodes the payload node n of a client frame of type typ,
// or reports false where lmp.DecodeClientPayload must decide. An unknown
// type is decided: it has no payload type (nil).
func (c *checker) clientPayload(typ string, n int32) (lmp.Payload, bool) {
	rt, known := lmp.ClientPayloadType(typ)
	if !known {
		return nil, true
	}
	plan := payloadPlans()[typ]
	if plan == nil || c.t.deep {
		return nil, false
	}
	v := reflect.New(rt).Elem()
	switch c.kind(n) {
	case kindNull: // encoding/json leaves the zero payload
	case kindObject:
		if !c.decodeFields(n, v, plan) {
			return nil, false
		}
	default:
		return nil, false
	}
	return v.Interface().(lmp.Payload), true
}

// decodeFields decodes the members of object node obj into struct v.
func (c *checker) decodeFields(obj int32, v reflect.Value, plan []fieldPlan) bool {
	t := &c.t
	for m := t.nodes[obj].first; m >= 0; m = t.nodes[m].next {
		nd := &t.nodes[m]
		key := t.raw[nd.keyStart:nd.keyEnd]
		var p *fieldPlan
		for i := range plan {
			if plan[i].key == string(key) {
				p = &plan[i]
				break
			}
		}
		if p == nil {
			continue // unknown: ignored
		}
		f := v.Field(p.index)
		if nd.kind == kindNull {
			if p.ptr {
				f.SetZero()
			}
			continue
		}
		if p.ptr {
			if f.IsNil() {
				f.Set(reflect.New(f.Type().Elem()))
			}
			f = f.Elem()
		}
		switch {
		case p.kind == reflect.String && nd.kind == kindString:
			f.SetString(string(t.text(m, false)))
		case p.bits > 0 && nd.kind == kindNumber:
			n, err := strconv.ParseInt(string(t.raw[nd.start:nd.end]), 10, 64)
			if err != nil || f.OverflowInt(n) {
				return false // encoding/json names the value in its error
			}
			f.SetInt(n)
		case p.kind == reflect.Struct && nd.kind == kindObject:
			if !c.decodeFields(m, f, p.sub) {
				return false
			}
		default:
			return false // a value of another kind: encoding/json's error
		}
	}
	return true
}
