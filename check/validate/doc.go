// Package validate implements `lmp-check validate`: it checks captured or
// hand-written LMP frames against the schemas of package schema and prints a
// verdict per frame.
package validate
