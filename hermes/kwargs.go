package hermes

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// KwargError says which kwarg of a hook could not be read, and why.
type KwargError struct {
	Hook, Kwarg string
	Want        KwargType
	Got         string // the JSON kind it had
}

func (e *KwargError) Error() string {
	return fmt.Sprintf("hook %s: kwarg %s must be %s, got %s", e.Hook, e.Kwarg, e.Want, e.Got)
}

// field is one kwarg of an Args struct.
type field struct {
	kwarg    Kwarg
	index    []int
	optional bool
	implicit bool
}

var fieldCache sync.Map // reflect.Type → []field

// fieldsOf lists the kwargs of an Args struct type, embedded structs'
// first, in declaration order.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, idx)
				continue
			}
			tag, ok := sf.Tag.Lookup("kw")
			if !ok {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			out = append(out, field{
				kwarg: Kwarg{name, typeOf(sf.Type)}, index: idx,
				optional: opts == "optional", implicit: opts == "implicit",
			})
		}
	}
	walk(t, nil)
	fieldCache.Store(t, out)
	return out
}

// typeOf is the JSON type Hermes gives a kwarg of Go type t.
func typeOf(t reflect.Type) KwargType {
	switch t.Kind() {
	case reflect.String:
		return TypeString
	case reflect.Pointer:
		return TypeStringOrNull
	case reflect.Int:
		return TypeInt
	case reflect.Bool:
		return TypeBool
	case reflect.Slice:
		return TypeList
	case reflect.Map:
		return TypeObject
	}
	return TypeAny
}

// Encode returns a hook's keyword arguments as a plugin callback receives
// them: every kwarg the hook carries (a nil list or map as an empty one),
// an optional one only when set, and
// TelemetrySchemaVersion on a stream hook that does not give its own.
func Encode(a Args) map[string]any {
	v := reflect.ValueOf(a)
	fields := fieldsOf(v.Type())
	kw := make(map[string]any, len(fields))
	for _, f := range fields {
		fv := v.FieldByIndex(f.index)
		switch {
		case f.implicit && fv.IsZero():
			kw[f.kwarg.Name] = TelemetrySchemaVersion
		case f.optional && fv.IsZero():
		case (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.IsNil():
			// Hermes passes an empty list or dict, never None, for these.
			if fv.Kind() == reflect.Slice {
				kw[f.kwarg.Name] = reflect.MakeSlice(fv.Type(), 0, 0).Interface()
			} else {
				kw[f.kwarg.Name] = reflect.MakeMap(fv.Type()).Interface()
			}
		case fv.Kind() == reflect.Pointer:
			if fv.IsNil() {
				kw[f.kwarg.Name] = nil
			} else {
				kw[f.kwarg.Name] = fv.Elem().Interface()
			}
		default:
			kw[f.kwarg.Name] = fv.Interface()
		}
	}
	return kw
}

// Decode reads a hook's keyword arguments into A. It is lenient, as a
// plugin has to be: a missing or null kwarg reads as its zero value;
// numbers may be float64 (decoded JSON), any Go integer or json.Number;
// kwargs A does not name are ignored. A kwarg of the wrong type is a
// *KwargError, never a panic.
func Decode[A Args](kw map[string]any) (A, error) {
	var a A
	v := reflect.ValueOf(&a).Elem()
	for _, f := range fieldsOf(v.Type()) {
		raw, ok := kw[f.kwarg.Name]
		if !ok || raw == nil {
			continue
		}
		if !set(v.FieldByIndex(f.index), raw) {
			return a, &KwargError{a.HookName(), f.kwarg.Name, f.kwarg.Type, jsonKind(raw)}
		}
	}
	return a, nil
}

// set stores raw in dst when it has dst's JSON type.
func set(dst reflect.Value, raw any) bool {
	switch dst.Kind() {
	case reflect.String:
		s, ok := raw.(string)
		dst.SetString(s)
		return ok
	case reflect.Pointer:
		s, ok := raw.(string)
		if ok {
			dst.Set(reflect.ValueOf(&s))
		}
		return ok
	case reflect.Int:
		n, ok := number(raw)
		if ok {
			dst.SetInt(int64(n))
		}
		return ok
	case reflect.Bool:
		b, ok := raw.(bool)
		dst.SetBool(b)
		return ok
	case reflect.Slice:
		return setList(dst, raw)
	case reflect.Map:
		m, ok := raw.(map[string]any)
		if ok {
			dst.Set(reflect.ValueOf(m))
		}
		return ok
	}
	dst.Set(reflect.ValueOf(raw))
	return true
}

// setList stores a list: []any takes any list, []string one of strings.
func setList(dst reflect.Value, raw any) bool {
	rv := reflect.ValueOf(raw)
	if rv.Kind() != reflect.Slice {
		return false
	}
	out := reflect.MakeSlice(dst.Type(), rv.Len(), rv.Len())
	for i := range rv.Len() {
		e := rv.Index(i)
		if e.Kind() == reflect.Interface {
			e = e.Elem()
		}
		if !e.IsValid() {
			if dst.Type().Elem().Kind() != reflect.Interface {
				return false
			}
			continue
		}
		if !e.Type().AssignableTo(dst.Type().Elem()) {
			return false
		}
		out.Index(i).Set(e)
	}
	dst.Set(out)
	return true
}

// number reads a numeric kwarg; a fraction is cut off.
func number(raw any) (float64, bool) {
	var f float64
	switch v := raw.(type) {
	case float64:
		f = v
	case float32:
		f = float64(v)
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case int32:
		f = float64(v)
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return math.Trunc(f), true
}

// jsonKind names the JSON kind of a decoded value, for error messages.
func jsonKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if r := []rune(t); len(r) > 40 {
			t = string(r[:39]) + "…"
		}
		return fmt.Sprintf("the string %q", t)
	case float64:
		return fmt.Sprintf("the number %v", t)
	case bool:
		return fmt.Sprintf("the boolean %v", t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
