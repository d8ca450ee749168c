// Code generated from the schemas in this directory by TestCompiledIsCurrent (compiled_gen_test.go); DO NOT EDIT.

package schema

import "regexp"

// compiledPatterns are the schemas' patterns, compiled as jsonschema/v5 compiles them.
var compiledPatterns = [...]*regexp.Regexp{
	regexp.MustCompile("^e_(0|[1-9][0-9]*)$"),
}

// compiledC2S holds the validator of each c2s frame schema, by type.
var compiledC2S = map[string]compiledFrame{
	"approval.resolve": compiled_c2s_approval_resolve,
	"envelope":         compiled_c2s_envelope,
	"hello":            compiled_c2s_hello,
	"ping":             compiled_c2s_ping,
	"pong":             compiled_c2s_pong,
	"run.cancel":       compiled_c2s_run_cancel,
	"run.pause":        compiled_c2s_run_pause,
	"run.resume":       compiled_c2s_run_resume,
	"session.send":     compiled_c2s_session_send,
	"task.list":        compiled_c2s_task_list,
}

// compiledS2C holds the validator of each s2c frame schema, by type.
var compiledS2C = map[string]compiledFrame{
	"ack":               compiled_s2c_ack,
	"approval.required": compiled_s2c_approval_required,
	"approval.resolved": compiled_s2c_approval_resolved,
	"envelope":          compiled_s2c_envelope,
	"error":             compiled_s2c_error,
	"hello.ok":          compiled_s2c_hello_ok,
	"notification":      compiled_s2c_notification,
	"ping":              compiled_s2c_ping,
	"pong":              compiled_s2c_pong,
	"run.completed":     compiled_s2c_run_completed,
	"run.delta":         compiled_s2c_run_delta,
	"run.failed":        compiled_s2c_run_failed,
	"run.interim":       compiled_s2c_run_interim,
	"run.started":       compiled_s2c_run_started,
	"run.tool_finished": compiled_s2c_run_tool_finished,
	"run.tool_started":  compiled_s2c_run_tool_started,
	"task.list.result":  compiled_s2c_task_list_result,
}

// compiled_c2s_approval_resolve applies c2s/approval.resolve.
func compiled_c2s_approval_resolve(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "approval_id") < 0 {
						c.fail("approval_id", "F-2", "required field \"approval_id\" is missing")
					}
					if c.t.member(m1, "choice") < 0 {
						c.fail("choice", "F-2", "required field \"choice\" is missing")
					}
					if c.t.member(m1, "request_id") < 0 {
						c.fail("request_id", "F-2", "required field \"request_id\" is missing")
					}
					if m2 := c.t.member(m1, "approval_id"); m2 >= 0 {
						c.push("approval_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-2", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 128 && c.runes(m2) > 128 {
									c.lengthFailed(m2, "F-2", "at most", 128)
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "choice"); m3 >= 0 {
						c.push("choice")
						if !(c.textIs(m3, "once") || c.textIs(m3, "session") || c.textIs(m3, "always") || c.textIs(m3, "deny")) {
							c.fail("", "F-8", "must be one of \"once\", \"session\", \"always\", \"deny\"")
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "reason"); m4 >= 0 {
						c.push("reason")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-2", "string", false)
						} else {
							if c.kind(m4) == kindString {
								if nd := &c.t.nodes[m4]; int(nd.end-nd.start) > 65536 && c.runes(m4) > 65536 {
									c.lengthFailed(m4, "F-2", "at most", 65536)
								}
							}
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "request_id"); m5 >= 0 {
						c.push("request_id")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "I-1", "string", false)
						} else {
							if c.kind(m5) == kindString {
								if nd := &c.t.nodes[m5]; int(nd.end-nd.start) > 128 && c.runes(m5) > 128 {
									c.lengthFailed(m5, "I-1", "at most", 128)
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m6 := c.t.member(n0, "type"); m6 >= 0 {
			c.push("type")
			if !c.textIs(m6, "approval.resolve") {
				c.constFailed(m6, "F-2", "\"approval.resolve\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m7 := c.t.member(n0, "payload"); m7 >= 0 {
				c.push("payload")
				if !(c.kind(m7) == kindObject) {
					c.typeFailed(m7, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "type"); m8 >= 0 {
				c.push("type")
				if !(c.kind(m8) == kindString) {
					c.typeFailed(m8, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "v"); m9 >= 0 {
				c.push("v")
				if !(c.isInteger(m9)) {
					c.typeFailed(m9, "F-2", "integer", true)
				} else {
					if !c.intIs(m9, 1) {
						c.constFailed(m9, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_envelope applies c2s/envelope.
func compiled_c2s_envelope(c *checker, n0 int32) {
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m1 := c.t.member(n0, "payload"); m1 >= 0 {
				c.push("payload")
				if !(c.kind(m1) == kindObject) {
					c.typeFailed(m1, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m2 := c.t.member(n0, "type"); m2 >= 0 {
				c.push("type")
				if !(c.kind(m2) == kindString) {
					c.typeFailed(m2, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m3 := c.t.member(n0, "v"); m3 >= 0 {
				c.push("v")
				if !(c.isInteger(m3)) {
					c.typeFailed(m3, "F-2", "integer", true)
				} else {
					if !c.intIs(m3, 1) {
						c.constFailed(m3, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_hello applies c2s/hello.
func compiled_c2s_hello(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "protocol_version") < 0 {
						c.fail("protocol_version", "F-2", "required field \"protocol_version\" is missing")
					}
					if c.t.member(m1, "device_info") < 0 {
						c.fail("device_info", "F-2", "required field \"device_info\" is missing")
					}
					if m2 := c.t.member(m1, "credential"); m2 >= 0 {
						c.push("credential")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "P-8", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 256 && c.runes(m2) > 256 {
									c.lengthFailed(m2, "P-8", "at most", 256)
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "device_id"); m3 >= 0 {
						c.push("device_id")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "P-8", "string", false)
						} else {
							if c.kind(m3) == kindString {
								if nd := &c.t.nodes[m3]; int(nd.end-nd.start) > 128 && c.runes(m3) > 128 {
									c.lengthFailed(m3, "P-8", "at most", 128)
								}
							}
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "device_info"); m4 >= 0 {
						c.push("device_info")
						if !(c.kind(m4) == kindObject) {
							c.typeFailed(m4, "F-2", "object", false)
						} else {
							if c.kind(m4) == kindObject {
								if c.t.member(m4, "model") < 0 {
									c.fail("model", "F-2", "required field \"model\" is missing")
								}
								if c.t.member(m4, "os") < 0 {
									c.fail("os", "F-2", "required field \"os\" is missing")
								}
								if c.t.member(m4, "app_version") < 0 {
									c.fail("app_version", "F-2", "required field \"app_version\" is missing")
								}
								if m5 := c.t.member(m4, "app_version"); m5 >= 0 {
									c.push("app_version")
									if !(c.kind(m5) == kindString) {
										c.typeFailed(m5, "F-2", "string", false)
									} else {
										if c.kind(m5) == kindString {
											if nd := &c.t.nodes[m5]; int(nd.end-nd.start) > 128 && c.runes(m5) > 128 {
												c.lengthFailed(m5, "F-2", "at most", 128)
											}
										}
									}
									c.pop()
								}
								if m6 := c.t.member(m4, "model"); m6 >= 0 {
									c.push("model")
									if !(c.kind(m6) == kindString) {
										c.typeFailed(m6, "F-2", "string", false)
									} else {
										if c.kind(m6) == kindString {
											if nd := &c.t.nodes[m6]; int(nd.end-nd.start) > 128 && c.runes(m6) > 128 {
												c.lengthFailed(m6, "F-2", "at most", 128)
											}
										}
									}
									c.pop()
								}
								if m7 := c.t.member(m4, "os"); m7 >= 0 {
									c.push("os")
									if !(c.kind(m7) == kindString) {
										c.typeFailed(m7, "F-2", "string", false)
									} else {
										if c.kind(m7) == kindString {
											if nd := &c.t.nodes[m7]; int(nd.end-nd.start) > 128 && c.runes(m7) > 128 {
												c.lengthFailed(m7, "F-2", "at most", 128)
											}
										}
									}
									c.pop()
								}
							}
						}
						c.pop()
					}
					if m8 := c.t.member(m1, "last_seq"); m8 >= 0 {
						c.push("last_seq")
						if !(c.isInteger(m8)) {
							c.typeFailed(m8, "E-5", "integer", true)
						} else {
							if c.kind(m8) == kindNumber {
								if c.numCmp(m8, 0) < 0 {
									c.fail("", "E-5", "must be >= 0")
								}
								if c.numCmp(m8, 9007199254740991) > 0 {
									c.fail("", "E-5", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m9 := c.t.member(m1, "protocol_version"); m9 >= 0 {
						c.push("protocol_version")
						if !(c.isInteger(m9)) {
							c.typeFailed(m9, "V-2", "integer", true)
						} else {
							if c.kind(m9) == kindNumber {
								if c.numCmp(m9, 0) < 0 {
									c.fail("", "V-2", "must be >= 0")
								}
								if c.numCmp(m9, 9007199254740991) > 0 {
									c.fail("", "V-2", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m10 := c.t.member(m1, "token"); m10 >= 0 {
						c.push("token")
						if !(c.kind(m10) == kindString) {
							c.typeFailed(m10, "P-3", "string", false)
						} else {
							if c.kind(m10) == kindString {
								if nd := &c.t.nodes[m10]; int(nd.end-nd.start) > 256 && c.runes(m10) > 256 {
									c.lengthFailed(m10, "P-3", "at most", 256)
								}
							}
						}
						c.pop()
					}
				}
				c.mute++
				f11 := c.fails
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "token") < 0 {
						c.fail("token", "F-2", "required field \"token\" is missing")
					}
				}
				c.mute--
				holds12 := c.fails == f11
				if !holds12 {
					if c.kind(m1) == kindObject {
						if c.t.member(m1, "device_id") < 0 {
							c.fail("device_id", "P-8", "required field \"device_id\" is missing")
						}
						if c.t.member(m1, "credential") < 0 {
							c.fail("credential", "P-8", "required field \"credential\" is missing")
						}
					}
				}
			}
			c.pop()
		}
		if m13 := c.t.member(n0, "type"); m13 >= 0 {
			c.push("type")
			if !c.textIs(m13, "hello") {
				c.constFailed(m13, "F-2", "\"hello\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m14 := c.t.member(n0, "payload"); m14 >= 0 {
				c.push("payload")
				if !(c.kind(m14) == kindObject) {
					c.typeFailed(m14, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "type"); m15 >= 0 {
				c.push("type")
				if !(c.kind(m15) == kindString) {
					c.typeFailed(m15, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "v"); m16 >= 0 {
				c.push("v")
				if !(c.isInteger(m16)) {
					c.typeFailed(m16, "F-2", "integer", true)
				} else {
					if !c.intIs(m16, 1) {
						c.constFailed(m16, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_ping applies c2s/ping.
func compiled_c2s_ping(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "T-6", "object", false)
			} else {
			}
			c.pop()
		}
		if m2 := c.t.member(n0, "type"); m2 >= 0 {
			c.push("type")
			if !c.textIs(m2, "ping") {
				c.constFailed(m2, "F-2", "\"ping\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m3 := c.t.member(n0, "payload"); m3 >= 0 {
				c.push("payload")
				if !(c.kind(m3) == kindObject) {
					c.typeFailed(m3, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m4 := c.t.member(n0, "type"); m4 >= 0 {
				c.push("type")
				if !(c.kind(m4) == kindString) {
					c.typeFailed(m4, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "v"); m5 >= 0 {
				c.push("v")
				if !(c.isInteger(m5)) {
					c.typeFailed(m5, "F-2", "integer", true)
				} else {
					if !c.intIs(m5, 1) {
						c.constFailed(m5, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_pong applies c2s/pong.
func compiled_c2s_pong(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "T-5", "object", false)
			} else {
			}
			c.pop()
		}
		if m2 := c.t.member(n0, "type"); m2 >= 0 {
			c.push("type")
			if !c.textIs(m2, "pong") {
				c.constFailed(m2, "F-2", "\"pong\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m3 := c.t.member(n0, "payload"); m3 >= 0 {
				c.push("payload")
				if !(c.kind(m3) == kindObject) {
					c.typeFailed(m3, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m4 := c.t.member(n0, "type"); m4 >= 0 {
				c.push("type")
				if !(c.kind(m4) == kindString) {
					c.typeFailed(m4, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "v"); m5 >= 0 {
				c.push("v")
				if !(c.isInteger(m5)) {
					c.typeFailed(m5, "F-2", "integer", true)
				} else {
					if !c.intIs(m5, 1) {
						c.constFailed(m5, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_run_cancel applies c2s/run.cancel.
func compiled_c2s_run_cancel(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-2", "required field \"run_id\" is missing")
					}
					if m2 := c.t.member(m1, "run_id"); m2 >= 0 {
						c.push("run_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-2", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 128 && c.runes(m2) > 128 {
									c.lengthFailed(m2, "F-2", "at most", 128)
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m3 := c.t.member(n0, "type"); m3 >= 0 {
			c.push("type")
			if !c.textIs(m3, "run.cancel") {
				c.constFailed(m3, "F-2", "\"run.cancel\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m4 := c.t.member(n0, "payload"); m4 >= 0 {
				c.push("payload")
				if !(c.kind(m4) == kindObject) {
					c.typeFailed(m4, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "type"); m5 >= 0 {
				c.push("type")
				if !(c.kind(m5) == kindString) {
					c.typeFailed(m5, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "v"); m6 >= 0 {
				c.push("v")
				if !(c.isInteger(m6)) {
					c.typeFailed(m6, "F-2", "integer", true)
				} else {
					if !c.intIs(m6, 1) {
						c.constFailed(m6, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_run_pause applies c2s/run.pause.
func compiled_c2s_run_pause(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-2", "required field \"run_id\" is missing")
					}
					if m2 := c.t.member(m1, "run_id"); m2 >= 0 {
						c.push("run_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-2", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 128 && c.runes(m2) > 128 {
									c.lengthFailed(m2, "F-2", "at most", 128)
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m3 := c.t.member(n0, "type"); m3 >= 0 {
			c.push("type")
			if !c.textIs(m3, "run.pause") {
				c.constFailed(m3, "F-2", "\"run.pause\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m4 := c.t.member(n0, "payload"); m4 >= 0 {
				c.push("payload")
				if !(c.kind(m4) == kindObject) {
					c.typeFailed(m4, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "type"); m5 >= 0 {
				c.push("type")
				if !(c.kind(m5) == kindString) {
					c.typeFailed(m5, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "v"); m6 >= 0 {
				c.push("v")
				if !(c.isInteger(m6)) {
					c.typeFailed(m6, "F-2", "integer", true)
				} else {
					if !c.intIs(m6, 1) {
						c.constFailed(m6, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_run_resume applies c2s/run.resume.
func compiled_c2s_run_resume(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-2", "required field \"run_id\" is missing")
					}
					if m2 := c.t.member(m1, "run_id"); m2 >= 0 {
						c.push("run_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-2", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 128 && c.runes(m2) > 128 {
									c.lengthFailed(m2, "F-2", "at most", 128)
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m3 := c.t.member(n0, "type"); m3 >= 0 {
			c.push("type")
			if !c.textIs(m3, "run.resume") {
				c.constFailed(m3, "F-2", "\"run.resume\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m4 := c.t.member(n0, "payload"); m4 >= 0 {
				c.push("payload")
				if !(c.kind(m4) == kindObject) {
					c.typeFailed(m4, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "type"); m5 >= 0 {
				c.push("type")
				if !(c.kind(m5) == kindString) {
					c.typeFailed(m5, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "v"); m6 >= 0 {
				c.push("v")
				if !(c.isInteger(m6)) {
					c.typeFailed(m6, "F-2", "integer", true)
				} else {
					if !c.intIs(m6, 1) {
						c.constFailed(m6, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_session_send applies c2s/session.send.
func compiled_c2s_session_send(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "text") < 0 {
						c.fail("text", "F-2", "required field \"text\" is missing")
					}
					if c.t.member(m1, "request_id") < 0 {
						c.fail("request_id", "F-2", "required field \"request_id\" is missing")
					}
					if m2 := c.t.member(m1, "request_id"); m2 >= 0 {
						c.push("request_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "I-1", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if nd := &c.t.nodes[m2]; int(nd.end-nd.start) > 128 && c.runes(m2) > 128 {
									c.lengthFailed(m2, "I-1", "at most", 128)
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "task_id"); m3 >= 0 {
						c.push("task_id")
						if c.kind(m3) == kindString {
							if nd := &c.t.nodes[m3]; int(nd.end-nd.start) > 128 && c.runes(m3) > 128 {
								c.lengthFailed(m3, "F-5", "at most", 128)
							}
						}
						if !(c.kind(m3) == kindString || c.kind(m3) == kindNull) {
							c.typeFailed(m3, "F-5", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "text"); m4 >= 0 {
						c.push("text")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-2", "string", false)
						} else {
							if c.kind(m4) == kindString {
								if nd := &c.t.nodes[m4]; int(nd.end-nd.start) > 65536 && c.runes(m4) > 65536 {
									c.lengthFailed(m4, "F-2", "at most", 65536)
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m5 := c.t.member(n0, "type"); m5 >= 0 {
			c.push("type")
			if !c.textIs(m5, "session.send") {
				c.constFailed(m5, "F-2", "\"session.send\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m6 := c.t.member(n0, "payload"); m6 >= 0 {
				c.push("payload")
				if !(c.kind(m6) == kindObject) {
					c.typeFailed(m6, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "type"); m7 >= 0 {
				c.push("type")
				if !(c.kind(m7) == kindString) {
					c.typeFailed(m7, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "v"); m8 >= 0 {
				c.push("v")
				if !(c.isInteger(m8)) {
					c.typeFailed(m8, "F-2", "integer", true)
				} else {
					if !c.intIs(m8, 1) {
						c.constFailed(m8, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_c2s_task_list applies c2s/task.list.
func compiled_c2s_task_list(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-2", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "request_id") < 0 {
						c.fail("request_id", "F-2", "required field \"request_id\" is missing")
					}
					if m2 := c.t.member(m1, "limit"); m2 >= 0 {
						c.push("limit")
						if !(c.isInteger(m2)) {
							c.typeFailed(m2, "F-9", "integer", true)
						} else {
							if c.kind(m2) == kindNumber {
								if c.numCmp(m2, 0) < 0 {
									c.fail("", "F-9", "must be >= 0")
								}
								if c.numCmp(m2, 9007199254740991) > 0 {
									c.fail("", "F-9", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "request_id"); m3 >= 0 {
						c.push("request_id")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "F-2", "string", false)
						} else {
							if c.kind(m3) == kindString {
								if nd := &c.t.nodes[m3]; int(nd.end-nd.start) > 128 && c.runes(m3) > 128 {
									c.lengthFailed(m3, "F-2", "at most", 128)
								}
							}
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "status_filter"); m4 >= 0 {
						c.push("status_filter")
						if !(c.textIs(m4, "live") || c.textIs(m4, "ended") || c.textIs(m4, "all")) {
							c.fail("", "F-9", "must be one of \"live\", \"ended\", \"all\"")
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m5 := c.t.member(n0, "type"); m5 >= 0 {
			c.push("type")
			if !c.textIs(m5, "task.list") {
				c.constFailed(m5, "F-2", "\"task.list\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "F-2", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "F-2", "required field \"v\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "F-2", "required field \"type\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "F-2", "required field \"payload\" is missing")
			}
			if m6 := c.t.member(n0, "payload"); m6 >= 0 {
				c.push("payload")
				if !(c.kind(m6) == kindObject) {
					c.typeFailed(m6, "F-2", "object", false)
				} else {
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "type"); m7 >= 0 {
				c.push("type")
				if !(c.kind(m7) == kindString) {
					c.typeFailed(m7, "F-2", "string", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "v"); m8 >= 0 {
				c.push("v")
				if !(c.isInteger(m8)) {
					c.typeFailed(m8, "F-2", "integer", true)
				} else {
					if !c.intIs(m8, 1) {
						c.constFailed(m8, "F-2", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_ack applies s2c/ack.
func compiled_s2c_ack(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "I-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "request_id") < 0 {
						c.fail("request_id", "I-1", "required field \"request_id\" is missing")
					}
					if c.t.member(m1, "for") < 0 {
						c.fail("for", "I-1", "required field \"for\" is missing")
					}
					if c.t.member(m1, "task_id") < 0 {
						c.fail("task_id", "I-1", "required field \"task_id\" is missing")
					}
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "I-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "approval_id") < 0 {
						c.fail("approval_id", "I-1", "required field \"approval_id\" is missing")
					}
					if m2 := c.t.member(m1, "approval_id"); m2 >= 0 {
						c.push("approval_id")
						if !(c.kind(m2) == kindString || c.kind(m2) == kindNull) {
							c.typeFailed(m2, "I-1", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "for"); m3 >= 0 {
						c.push("for")
						if !(c.textIs(m3, "session.send") || c.textIs(m3, "approval.resolve")) {
							c.fail("", "I-1", "must be one of \"session.send\", \"approval.resolve\"")
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "request_id"); m4 >= 0 {
						c.push("request_id")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "I-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "run_id"); m5 >= 0 {
						c.push("run_id")
						if !(c.kind(m5) == kindString || c.kind(m5) == kindNull) {
							c.typeFailed(m5, "I-1", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "task_id"); m6 >= 0 {
						c.push("task_id")
						if !(c.kind(m6) == kindString || c.kind(m6) == kindNull) {
							c.typeFailed(m6, "I-1", "string or null", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m7 := c.t.member(n0, "type"); m7 >= 0 {
			c.push("type")
			if !c.textIs(m7, "ack") {
				c.constFailed(m7, "E-1", "\"ack\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m8 := c.t.member(n0, "event_id"); m8 >= 0 {
				c.push("event_id")
				if !(c.kind(m8) == kindString) {
					c.typeFailed(m8, "E-3", "string", false)
				} else {
					if c.kind(m8) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m8, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "payload"); m9 >= 0 {
				c.push("payload")
				if !(c.kind(m9) == kindObject) {
					c.typeFailed(m9, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "run_id"); m10 >= 0 {
				c.push("run_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "seq"); m11 >= 0 {
				c.push("seq")
				if !(c.isInteger(m11)) {
					c.typeFailed(m11, "E-1", "integer", true)
				} else {
					if c.kind(m11) == kindNumber {
						if c.numCmp(m11, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m11, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "task_id"); m12 >= 0 {
				c.push("task_id")
				if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
					c.typeFailed(m12, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "ts"); m13 >= 0 {
				c.push("ts")
				if !(c.kind(m13) == kindNumber) {
					c.typeFailed(m13, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "type"); m14 >= 0 {
				c.push("type")
				if !(c.kind(m14) == kindString) {
					c.typeFailed(m14, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "v"); m15 >= 0 {
				c.push("v")
				if !(c.isInteger(m15)) {
					c.typeFailed(m15, "E-1", "integer", true)
				} else {
					if !c.intIs(m15, 1) {
						c.constFailed(m15, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_approval_required applies s2c/approval.required.
func compiled_s2c_approval_required(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "approval_id") < 0 {
						c.fail("approval_id", "F-1", "required field \"approval_id\" is missing")
					}
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "task_id") < 0 {
						c.fail("task_id", "F-1", "required field \"task_id\" is missing")
					}
					if c.t.member(m1, "command") < 0 {
						c.fail("command", "F-1", "required field \"command\" is missing")
					}
					if c.t.member(m1, "description") < 0 {
						c.fail("description", "F-1", "required field \"description\" is missing")
					}
					if c.t.member(m1, "choices") < 0 {
						c.fail("choices", "F-1", "required field \"choices\" is missing")
					}
					if c.t.member(m1, "smart_denied") < 0 {
						c.fail("smart_denied", "F-1", "required field \"smart_denied\" is missing")
					}
					if c.t.member(m1, "session_key_ref") < 0 {
						c.fail("session_key_ref", "F-1", "required field \"session_key_ref\" is missing")
					}
					if c.t.member(m1, "deadline_ts") < 0 {
						c.fail("deadline_ts", "F-1", "required field \"deadline_ts\" is missing")
					}
					if m2 := c.t.member(m1, "approval_id"); m2 >= 0 {
						c.push("approval_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "choices"); m3 >= 0 {
						c.push("choices")
						if !(c.kind(m3) == kindArray) {
							c.typeFailed(m3, "F-1", "array", false)
						} else {
							if c.kind(m3) == kindArray {
								i5 := 0
								for e4 := c.t.nodes[m3].first; e4 >= 0; e4 = c.t.nodes[e4].next {
									c.pushIndex(i5)
									if !(c.kind(e4) == kindObject) {
										c.typeFailed(e4, "F-1", "object", false)
									} else {
										if c.kind(e4) == kindObject {
											if c.t.member(e4, "label") < 0 {
												c.fail("label", "F-1", "required field \"label\" is missing")
											}
											if c.t.member(e4, "choice") < 0 {
												c.fail("choice", "F-1", "required field \"choice\" is missing")
											}
											if c.t.member(e4, "style") < 0 {
												c.fail("style", "F-1", "required field \"style\" is missing")
											}
											if m6 := c.t.member(e4, "choice"); m6 >= 0 {
												c.push("choice")
												if !(c.kind(m6) == kindString) {
													c.typeFailed(m6, "F-1", "string", false)
												} else {
												}
												c.pop()
											}
											if m7 := c.t.member(e4, "label"); m7 >= 0 {
												c.push("label")
												if !(c.kind(m7) == kindString) {
													c.typeFailed(m7, "F-1", "string", false)
												} else {
												}
												c.pop()
											}
											if m8 := c.t.member(e4, "style"); m8 >= 0 {
												c.push("style")
												if !(c.kind(m8) == kindString) {
													c.typeFailed(m8, "F-1", "string", false)
												} else {
												}
												c.pop()
											}
										}
									}
									c.pop()
									i5++
								}
							}
						}
						c.pop()
					}
					if m9 := c.t.member(m1, "command"); m9 >= 0 {
						c.push("command")
						if !(c.kind(m9) == kindString) {
							c.typeFailed(m9, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m10 := c.t.member(m1, "deadline_ts"); m10 >= 0 {
						c.push("deadline_ts")
						if !(c.kind(m10) == kindNumber) {
							c.typeFailed(m10, "T-7", "number", false)
						} else {
						}
						c.pop()
					}
					if m11 := c.t.member(m1, "description"); m11 >= 0 {
						c.push("description")
						if !(c.kind(m11) == kindString) {
							c.typeFailed(m11, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m12 := c.t.member(m1, "run_id"); m12 >= 0 {
						c.push("run_id")
						if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
							c.typeFailed(m12, "F-1", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m13 := c.t.member(m1, "session_key_ref"); m13 >= 0 {
						c.push("session_key_ref")
						if !(c.kind(m13) == kindString) {
							c.typeFailed(m13, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m14 := c.t.member(m1, "smart_denied"); m14 >= 0 {
						c.push("smart_denied")
						if !(c.kind(m14) == kindTrue || c.kind(m14) == kindFalse) {
							c.typeFailed(m14, "F-1", "boolean", false)
						} else {
						}
						c.pop()
					}
					if m15 := c.t.member(m1, "task_id"); m15 >= 0 {
						c.push("task_id")
						if !(c.kind(m15) == kindString || c.kind(m15) == kindNull) {
							c.typeFailed(m15, "F-1", "string or null", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m16 := c.t.member(n0, "type"); m16 >= 0 {
			c.push("type")
			if !c.textIs(m16, "approval.required") {
				c.constFailed(m16, "E-1", "\"approval.required\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m17 := c.t.member(n0, "event_id"); m17 >= 0 {
				c.push("event_id")
				if !(c.kind(m17) == kindString) {
					c.typeFailed(m17, "E-3", "string", false)
				} else {
					if c.kind(m17) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m17, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m18 := c.t.member(n0, "payload"); m18 >= 0 {
				c.push("payload")
				if !(c.kind(m18) == kindObject) {
					c.typeFailed(m18, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m19 := c.t.member(n0, "run_id"); m19 >= 0 {
				c.push("run_id")
				if !(c.kind(m19) == kindString || c.kind(m19) == kindNull) {
					c.typeFailed(m19, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m20 := c.t.member(n0, "seq"); m20 >= 0 {
				c.push("seq")
				if !(c.isInteger(m20)) {
					c.typeFailed(m20, "E-1", "integer", true)
				} else {
					if c.kind(m20) == kindNumber {
						if c.numCmp(m20, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m20, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m21 := c.t.member(n0, "task_id"); m21 >= 0 {
				c.push("task_id")
				if !(c.kind(m21) == kindString || c.kind(m21) == kindNull) {
					c.typeFailed(m21, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m22 := c.t.member(n0, "ts"); m22 >= 0 {
				c.push("ts")
				if !(c.kind(m22) == kindNumber) {
					c.typeFailed(m22, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m23 := c.t.member(n0, "type"); m23 >= 0 {
				c.push("type")
				if !(c.kind(m23) == kindString) {
					c.typeFailed(m23, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m24 := c.t.member(n0, "v"); m24 >= 0 {
				c.push("v")
				if !(c.isInteger(m24)) {
					c.typeFailed(m24, "E-1", "integer", true)
				} else {
					if !c.intIs(m24, 1) {
						c.constFailed(m24, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_approval_resolved applies s2c/approval.resolved.
func compiled_s2c_approval_resolved(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "approval_id") < 0 {
						c.fail("approval_id", "F-1", "required field \"approval_id\" is missing")
					}
					if c.t.member(m1, "choice") < 0 {
						c.fail("choice", "F-1", "required field \"choice\" is missing")
					}
					if c.t.member(m1, "decided_by") < 0 {
						c.fail("decided_by", "F-1", "required field \"decided_by\" is missing")
					}
					if m2 := c.t.member(m1, "approval_id"); m2 >= 0 {
						c.push("approval_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "choice"); m3 >= 0 {
						c.push("choice")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "decided_by"); m4 >= 0 {
						c.push("decided_by")
						if !(c.textIs(m4, "local") || c.textIs(m4, "remote") || c.textIs(m4, "timeout") || c.textIs(m4, "agent")) {
							c.fail("", "F-1", "must be one of \"local\", \"remote\", \"timeout\", \"agent\"")
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m5 := c.t.member(n0, "type"); m5 >= 0 {
			c.push("type")
			if !c.textIs(m5, "approval.resolved") {
				c.constFailed(m5, "E-1", "\"approval.resolved\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m6 := c.t.member(n0, "event_id"); m6 >= 0 {
				c.push("event_id")
				if !(c.kind(m6) == kindString) {
					c.typeFailed(m6, "E-3", "string", false)
				} else {
					if c.kind(m6) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m6, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "payload"); m7 >= 0 {
				c.push("payload")
				if !(c.kind(m7) == kindObject) {
					c.typeFailed(m7, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "run_id"); m8 >= 0 {
				c.push("run_id")
				if !(c.kind(m8) == kindString || c.kind(m8) == kindNull) {
					c.typeFailed(m8, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "seq"); m9 >= 0 {
				c.push("seq")
				if !(c.isInteger(m9)) {
					c.typeFailed(m9, "E-1", "integer", true)
				} else {
					if c.kind(m9) == kindNumber {
						if c.numCmp(m9, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m9, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "task_id"); m10 >= 0 {
				c.push("task_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "ts"); m11 >= 0 {
				c.push("ts")
				if !(c.kind(m11) == kindNumber) {
					c.typeFailed(m11, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "type"); m12 >= 0 {
				c.push("type")
				if !(c.kind(m12) == kindString) {
					c.typeFailed(m12, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "v"); m13 >= 0 {
				c.push("v")
				if !(c.isInteger(m13)) {
					c.typeFailed(m13, "E-1", "integer", true)
				} else {
					if !c.intIs(m13, 1) {
						c.constFailed(m13, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_envelope applies s2c/envelope.
func compiled_s2c_envelope(c *checker, n0 int32) {
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m1 := c.t.member(n0, "event_id"); m1 >= 0 {
				c.push("event_id")
				if !(c.kind(m1) == kindString) {
					c.typeFailed(m1, "E-3", "string", false)
				} else {
					if c.kind(m1) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m1, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m2 := c.t.member(n0, "payload"); m2 >= 0 {
				c.push("payload")
				if !(c.kind(m2) == kindObject) {
					c.typeFailed(m2, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m3 := c.t.member(n0, "run_id"); m3 >= 0 {
				c.push("run_id")
				if !(c.kind(m3) == kindString || c.kind(m3) == kindNull) {
					c.typeFailed(m3, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m4 := c.t.member(n0, "seq"); m4 >= 0 {
				c.push("seq")
				if !(c.isInteger(m4)) {
					c.typeFailed(m4, "E-1", "integer", true)
				} else {
					if c.kind(m4) == kindNumber {
						if c.numCmp(m4, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m4, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "task_id"); m5 >= 0 {
				c.push("task_id")
				if !(c.kind(m5) == kindString || c.kind(m5) == kindNull) {
					c.typeFailed(m5, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "ts"); m6 >= 0 {
				c.push("ts")
				if !(c.kind(m6) == kindNumber) {
					c.typeFailed(m6, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "type"); m7 >= 0 {
				c.push("type")
				if !(c.kind(m7) == kindString) {
					c.typeFailed(m7, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "v"); m8 >= 0 {
				c.push("v")
				if !(c.isInteger(m8)) {
					c.typeFailed(m8, "E-1", "integer", true)
				} else {
					if !c.intIs(m8, 1) {
						c.constFailed(m8, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_error applies s2c/error.
func compiled_s2c_error(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "code") < 0 {
						c.fail("code", "F-1", "required field \"code\" is missing")
					}
					if c.t.member(m1, "message") < 0 {
						c.fail("message", "F-1", "required field \"message\" is missing")
					}
					if c.t.member(m1, "fatal") < 0 {
						c.fail("fatal", "F-1", "required field \"fatal\" is missing")
					}
					if m2 := c.t.member(m1, "code"); m2 >= 0 {
						c.push("code")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "fatal"); m3 >= 0 {
						c.push("fatal")
						if !(c.kind(m3) == kindTrue || c.kind(m3) == kindFalse) {
							c.typeFailed(m3, "F-1", "boolean", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "message"); m4 >= 0 {
						c.push("message")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "request_id"); m5 >= 0 {
						c.push("request_id")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "I-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "supported_versions"); m6 >= 0 {
						c.push("supported_versions")
						if !(c.kind(m6) == kindArray) {
							c.typeFailed(m6, "V-2", "array", false)
						} else {
							if c.kind(m6) == kindArray {
								i8 := 0
								for e7 := c.t.nodes[m6].first; e7 >= 0; e7 = c.t.nodes[e7].next {
									c.pushIndex(i8)
									if !(c.isInteger(e7)) {
										c.typeFailed(e7, "V-2", "integer", true)
									} else {
										if c.kind(e7) == kindNumber {
											if c.numCmp(e7, 0) < 0 {
												c.fail("", "V-2", "must be >= 0")
											}
											if c.numCmp(e7, 9007199254740991) > 0 {
												c.fail("", "V-2", "must be <= 9007199254740991")
											}
										}
									}
									c.pop()
									i8++
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m9 := c.t.member(n0, "type"); m9 >= 0 {
			c.push("type")
			if !c.textIs(m9, "error") {
				c.constFailed(m9, "E-1", "\"error\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m10 := c.t.member(n0, "event_id"); m10 >= 0 {
				c.push("event_id")
				if !(c.kind(m10) == kindString) {
					c.typeFailed(m10, "E-3", "string", false)
				} else {
					if c.kind(m10) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m10, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "payload"); m11 >= 0 {
				c.push("payload")
				if !(c.kind(m11) == kindObject) {
					c.typeFailed(m11, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "run_id"); m12 >= 0 {
				c.push("run_id")
				if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
					c.typeFailed(m12, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "seq"); m13 >= 0 {
				c.push("seq")
				if !(c.isInteger(m13)) {
					c.typeFailed(m13, "E-1", "integer", true)
				} else {
					if c.kind(m13) == kindNumber {
						if c.numCmp(m13, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m13, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "task_id"); m14 >= 0 {
				c.push("task_id")
				if !(c.kind(m14) == kindString || c.kind(m14) == kindNull) {
					c.typeFailed(m14, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "ts"); m15 >= 0 {
				c.push("ts")
				if !(c.kind(m15) == kindNumber) {
					c.typeFailed(m15, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "type"); m16 >= 0 {
				c.push("type")
				if !(c.kind(m16) == kindString) {
					c.typeFailed(m16, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m17 := c.t.member(n0, "v"); m17 >= 0 {
				c.push("v")
				if !(c.isInteger(m17)) {
					c.typeFailed(m17, "E-1", "integer", true)
				} else {
					if !c.intIs(m17, 1) {
						c.constFailed(m17, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_hello_ok applies s2c/hello.ok.
func compiled_s2c_hello_ok(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "device_id") < 0 {
						c.fail("device_id", "F-1", "required field \"device_id\" is missing")
					}
					if c.t.member(m1, "server_name") < 0 {
						c.fail("server_name", "F-1", "required field \"server_name\" is missing")
					}
					if c.t.member(m1, "server_version") < 0 {
						c.fail("server_version", "F-1", "required field \"server_version\" is missing")
					}
					if c.t.member(m1, "protocol_version") < 0 {
						c.fail("protocol_version", "F-1", "required field \"protocol_version\" is missing")
					}
					if c.t.member(m1, "server_time") < 0 {
						c.fail("server_time", "F-1", "required field \"server_time\" is missing")
					}
					if c.t.member(m1, "truncated") < 0 {
						c.fail("truncated", "F-1", "required field \"truncated\" is missing")
					}
					if c.t.member(m1, "home_channel") < 0 {
						c.fail("home_channel", "F-1", "required field \"home_channel\" is missing")
					}
					if m2 := c.t.member(m1, "credential"); m2 >= 0 {
						c.push("credential")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "P-7", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "device_id"); m3 >= 0 {
						c.push("device_id")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "P-7", "string", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "home_channel"); m4 >= 0 {
						c.push("home_channel")
						if !(c.kind(m4) == kindString || c.kind(m4) == kindNull) {
							c.typeFailed(m4, "F-1", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "protocol_version"); m5 >= 0 {
						c.push("protocol_version")
						if !(c.isInteger(m5)) {
							c.typeFailed(m5, "V-2", "integer", true)
						} else {
							if c.kind(m5) == kindNumber {
								if c.numCmp(m5, 0) < 0 {
									c.fail("", "V-2", "must be >= 0")
								}
								if c.numCmp(m5, 9007199254740991) > 0 {
									c.fail("", "V-2", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "server_name"); m6 >= 0 {
						c.push("server_name")
						if !(c.kind(m6) == kindString) {
							c.typeFailed(m6, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m7 := c.t.member(m1, "server_time"); m7 >= 0 {
						c.push("server_time")
						if !(c.kind(m7) == kindNumber) {
							c.typeFailed(m7, "T-7", "number", false)
						} else {
						}
						c.pop()
					}
					if m8 := c.t.member(m1, "server_version"); m8 >= 0 {
						c.push("server_version")
						if !(c.kind(m8) == kindString) {
							c.typeFailed(m8, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m9 := c.t.member(m1, "truncated"); m9 >= 0 {
						c.push("truncated")
						if !(c.kind(m9) == kindTrue || c.kind(m9) == kindFalse) {
							c.typeFailed(m9, "E-6", "boolean", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m10 := c.t.member(n0, "type"); m10 >= 0 {
			c.push("type")
			if !c.textIs(m10, "hello.ok") {
				c.constFailed(m10, "E-1", "\"hello.ok\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m11 := c.t.member(n0, "event_id"); m11 >= 0 {
				c.push("event_id")
				if !(c.kind(m11) == kindString) {
					c.typeFailed(m11, "E-3", "string", false)
				} else {
					if c.kind(m11) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m11, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "payload"); m12 >= 0 {
				c.push("payload")
				if !(c.kind(m12) == kindObject) {
					c.typeFailed(m12, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "run_id"); m13 >= 0 {
				c.push("run_id")
				if !(c.kind(m13) == kindString || c.kind(m13) == kindNull) {
					c.typeFailed(m13, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "seq"); m14 >= 0 {
				c.push("seq")
				if !(c.isInteger(m14)) {
					c.typeFailed(m14, "E-1", "integer", true)
				} else {
					if c.kind(m14) == kindNumber {
						if c.numCmp(m14, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m14, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "task_id"); m15 >= 0 {
				c.push("task_id")
				if !(c.kind(m15) == kindString || c.kind(m15) == kindNull) {
					c.typeFailed(m15, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "ts"); m16 >= 0 {
				c.push("ts")
				if !(c.kind(m16) == kindNumber) {
					c.typeFailed(m16, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m17 := c.t.member(n0, "type"); m17 >= 0 {
				c.push("type")
				if !(c.kind(m17) == kindString) {
					c.typeFailed(m17, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m18 := c.t.member(n0, "v"); m18 >= 0 {
				c.push("v")
				if !(c.isInteger(m18)) {
					c.typeFailed(m18, "E-1", "integer", true)
				} else {
					if !c.intIs(m18, 1) {
						c.constFailed(m18, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_notification applies s2c/notification.
func compiled_s2c_notification(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "category") < 0 {
						c.fail("category", "F-1", "required field \"category\" is missing")
					}
					if c.t.member(m1, "title") < 0 {
						c.fail("title", "F-1", "required field \"title\" is missing")
					}
					if c.t.member(m1, "text") < 0 {
						c.fail("text", "F-1", "required field \"text\" is missing")
					}
					if c.t.member(m1, "source") < 0 {
						c.fail("source", "F-1", "required field \"source\" is missing")
					}
					if c.t.member(m1, "requires_attention") < 0 {
						c.fail("requires_attention", "F-1", "required field \"requires_attention\" is missing")
					}
					if m2 := c.t.member(m1, "category"); m2 >= 0 {
						c.push("category")
						if !(c.textIs(m2, "result") || c.textIs(m2, "diagnostic")) {
							c.fail("", "F-1", "must be one of \"result\", \"diagnostic\"")
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "requires_attention"); m3 >= 0 {
						c.push("requires_attention")
						if !(c.kind(m3) == kindTrue || c.kind(m3) == kindFalse) {
							c.typeFailed(m3, "F-1", "boolean", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "source"); m4 >= 0 {
						c.push("source")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "text"); m5 >= 0 {
						c.push("text")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "title"); m6 >= 0 {
						c.push("title")
						if !(c.kind(m6) == kindString) {
							c.typeFailed(m6, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m7 := c.t.member(n0, "type"); m7 >= 0 {
			c.push("type")
			if !c.textIs(m7, "notification") {
				c.constFailed(m7, "E-1", "\"notification\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m8 := c.t.member(n0, "event_id"); m8 >= 0 {
				c.push("event_id")
				if !(c.kind(m8) == kindString) {
					c.typeFailed(m8, "E-3", "string", false)
				} else {
					if c.kind(m8) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m8, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "payload"); m9 >= 0 {
				c.push("payload")
				if !(c.kind(m9) == kindObject) {
					c.typeFailed(m9, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "run_id"); m10 >= 0 {
				c.push("run_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "seq"); m11 >= 0 {
				c.push("seq")
				if !(c.isInteger(m11)) {
					c.typeFailed(m11, "E-1", "integer", true)
				} else {
					if c.kind(m11) == kindNumber {
						if c.numCmp(m11, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m11, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "task_id"); m12 >= 0 {
				c.push("task_id")
				if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
					c.typeFailed(m12, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "ts"); m13 >= 0 {
				c.push("ts")
				if !(c.kind(m13) == kindNumber) {
					c.typeFailed(m13, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "type"); m14 >= 0 {
				c.push("type")
				if !(c.kind(m14) == kindString) {
					c.typeFailed(m14, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "v"); m15 >= 0 {
				c.push("v")
				if !(c.isInteger(m15)) {
					c.typeFailed(m15, "E-1", "integer", true)
				} else {
					if !c.intIs(m15, 1) {
						c.constFailed(m15, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_ping applies s2c/ping.
func compiled_s2c_ping(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "T-4", "object", false)
			} else {
			}
			c.pop()
		}
		if m2 := c.t.member(n0, "type"); m2 >= 0 {
			c.push("type")
			if !c.textIs(m2, "ping") {
				c.constFailed(m2, "E-1", "\"ping\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m3 := c.t.member(n0, "event_id"); m3 >= 0 {
				c.push("event_id")
				if !(c.kind(m3) == kindString) {
					c.typeFailed(m3, "E-3", "string", false)
				} else {
					if c.kind(m3) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m3, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m4 := c.t.member(n0, "payload"); m4 >= 0 {
				c.push("payload")
				if !(c.kind(m4) == kindObject) {
					c.typeFailed(m4, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "run_id"); m5 >= 0 {
				c.push("run_id")
				if !(c.kind(m5) == kindString || c.kind(m5) == kindNull) {
					c.typeFailed(m5, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "seq"); m6 >= 0 {
				c.push("seq")
				if !(c.isInteger(m6)) {
					c.typeFailed(m6, "E-1", "integer", true)
				} else {
					if c.kind(m6) == kindNumber {
						if c.numCmp(m6, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m6, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "task_id"); m7 >= 0 {
				c.push("task_id")
				if !(c.kind(m7) == kindString || c.kind(m7) == kindNull) {
					c.typeFailed(m7, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "ts"); m8 >= 0 {
				c.push("ts")
				if !(c.kind(m8) == kindNumber) {
					c.typeFailed(m8, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "type"); m9 >= 0 {
				c.push("type")
				if !(c.kind(m9) == kindString) {
					c.typeFailed(m9, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "v"); m10 >= 0 {
				c.push("v")
				if !(c.isInteger(m10)) {
					c.typeFailed(m10, "E-1", "integer", true)
				} else {
					if !c.intIs(m10, 1) {
						c.constFailed(m10, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_pong applies s2c/pong.
func compiled_s2c_pong(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "T-6", "object", false)
			} else {
			}
			c.pop()
		}
		if m2 := c.t.member(n0, "type"); m2 >= 0 {
			c.push("type")
			if !c.textIs(m2, "pong") {
				c.constFailed(m2, "E-1", "\"pong\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m3 := c.t.member(n0, "event_id"); m3 >= 0 {
				c.push("event_id")
				if !(c.kind(m3) == kindString) {
					c.typeFailed(m3, "E-3", "string", false)
				} else {
					if c.kind(m3) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m3, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m4 := c.t.member(n0, "payload"); m4 >= 0 {
				c.push("payload")
				if !(c.kind(m4) == kindObject) {
					c.typeFailed(m4, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m5 := c.t.member(n0, "run_id"); m5 >= 0 {
				c.push("run_id")
				if !(c.kind(m5) == kindString || c.kind(m5) == kindNull) {
					c.typeFailed(m5, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m6 := c.t.member(n0, "seq"); m6 >= 0 {
				c.push("seq")
				if !(c.isInteger(m6)) {
					c.typeFailed(m6, "E-1", "integer", true)
				} else {
					if c.kind(m6) == kindNumber {
						if c.numCmp(m6, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m6, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "task_id"); m7 >= 0 {
				c.push("task_id")
				if !(c.kind(m7) == kindString || c.kind(m7) == kindNull) {
					c.typeFailed(m7, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "ts"); m8 >= 0 {
				c.push("ts")
				if !(c.kind(m8) == kindNumber) {
					c.typeFailed(m8, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "type"); m9 >= 0 {
				c.push("type")
				if !(c.kind(m9) == kindString) {
					c.typeFailed(m9, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "v"); m10 >= 0 {
				c.push("v")
				if !(c.isInteger(m10)) {
					c.typeFailed(m10, "E-1", "integer", true)
				} else {
					if !c.intIs(m10, 1) {
						c.constFailed(m10, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_completed applies s2c/run.completed.
func compiled_s2c_run_completed(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "status") < 0 {
						c.fail("status", "F-1", "required field \"status\" is missing")
					}
					if c.t.member(m1, "text") < 0 {
						c.fail("text", "F-1", "required field \"text\" is missing")
					}
					if c.t.member(m1, "error") < 0 {
						c.fail("error", "F-1", "required field \"error\" is missing")
					}
					if c.t.member(m1, "finished") < 0 {
						c.fail("finished", "F-1", "required field \"finished\" is missing")
					}
					if m2 := c.t.member(m1, "error"); m2 >= 0 {
						c.push("error")
						if !(c.kind(m2) == kindString || c.kind(m2) == kindNull) {
							c.typeFailed(m2, "F-1", "string or null", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "finished"); m3 >= 0 {
						c.push("finished")
						if !(c.kind(m3) == kindTrue || c.kind(m3) == kindFalse || c.kind(m3) == kindNumber) {
							c.typeFailed(m3, "F-1", "boolean or number", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "run_id"); m4 >= 0 {
						c.push("run_id")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "status"); m5 >= 0 {
						c.push("status")
						if !(c.textIs(m5, "completed") || c.textIs(m5, "failed") || c.textIs(m5, "cancelled")) {
							c.fail("", "F-1", "must be one of \"completed\", \"failed\", \"cancelled\"")
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "text"); m6 >= 0 {
						c.push("text")
						if !(c.kind(m6) == kindString) {
							c.typeFailed(m6, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m7 := c.t.member(n0, "type"); m7 >= 0 {
			c.push("type")
			if !c.textIs(m7, "run.completed") {
				c.constFailed(m7, "E-1", "\"run.completed\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m8 := c.t.member(n0, "event_id"); m8 >= 0 {
				c.push("event_id")
				if !(c.kind(m8) == kindString) {
					c.typeFailed(m8, "E-3", "string", false)
				} else {
					if c.kind(m8) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m8, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "payload"); m9 >= 0 {
				c.push("payload")
				if !(c.kind(m9) == kindObject) {
					c.typeFailed(m9, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "run_id"); m10 >= 0 {
				c.push("run_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "seq"); m11 >= 0 {
				c.push("seq")
				if !(c.isInteger(m11)) {
					c.typeFailed(m11, "E-1", "integer", true)
				} else {
					if c.kind(m11) == kindNumber {
						if c.numCmp(m11, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m11, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "task_id"); m12 >= 0 {
				c.push("task_id")
				if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
					c.typeFailed(m12, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "ts"); m13 >= 0 {
				c.push("ts")
				if !(c.kind(m13) == kindNumber) {
					c.typeFailed(m13, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "type"); m14 >= 0 {
				c.push("type")
				if !(c.kind(m14) == kindString) {
					c.typeFailed(m14, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "v"); m15 >= 0 {
				c.push("v")
				if !(c.isInteger(m15)) {
					c.typeFailed(m15, "E-1", "integer", true)
				} else {
					if !c.intIs(m15, 1) {
						c.constFailed(m15, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_delta applies s2c/run.delta.
func compiled_s2c_run_delta(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "text") < 0 {
						c.fail("text", "F-1", "required field \"text\" is missing")
					}
					if c.t.member(m1, "kind") < 0 {
						c.fail("kind", "F-1", "required field \"kind\" is missing")
					}
					if c.t.member(m1, "iteration") < 0 {
						c.fail("iteration", "F-1", "required field \"iteration\" is missing")
					}
					if m2 := c.t.member(m1, "iteration"); m2 >= 0 {
						c.push("iteration")
						if !(c.isInteger(m2)) {
							c.typeFailed(m2, "F-1", "integer", true)
						} else {
							if c.kind(m2) == kindNumber {
								if c.numCmp(m2, 0) < 0 {
									c.fail("", "F-1", "must be >= 0")
								}
								if c.numCmp(m2, 9007199254740991) > 0 {
									c.fail("", "F-1", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "kind"); m3 >= 0 {
						c.push("kind")
						if !(c.textIs(m3, "text") || c.textIs(m3, "reasoning")) {
							c.fail("", "F-1", "must be one of \"text\", \"reasoning\"")
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "run_id"); m4 >= 0 {
						c.push("run_id")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "text"); m5 >= 0 {
						c.push("text")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m6 := c.t.member(n0, "type"); m6 >= 0 {
			c.push("type")
			if !c.textIs(m6, "run.delta") {
				c.constFailed(m6, "E-1", "\"run.delta\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m7 := c.t.member(n0, "event_id"); m7 >= 0 {
				c.push("event_id")
				if !(c.kind(m7) == kindString) {
					c.typeFailed(m7, "E-3", "string", false)
				} else {
					if c.kind(m7) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m7, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "payload"); m8 >= 0 {
				c.push("payload")
				if !(c.kind(m8) == kindObject) {
					c.typeFailed(m8, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "run_id"); m9 >= 0 {
				c.push("run_id")
				if !(c.kind(m9) == kindString || c.kind(m9) == kindNull) {
					c.typeFailed(m9, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "seq"); m10 >= 0 {
				c.push("seq")
				if !(c.isInteger(m10)) {
					c.typeFailed(m10, "E-1", "integer", true)
				} else {
					if c.kind(m10) == kindNumber {
						if c.numCmp(m10, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m10, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "task_id"); m11 >= 0 {
				c.push("task_id")
				if !(c.kind(m11) == kindString || c.kind(m11) == kindNull) {
					c.typeFailed(m11, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "ts"); m12 >= 0 {
				c.push("ts")
				if !(c.kind(m12) == kindNumber) {
					c.typeFailed(m12, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "type"); m13 >= 0 {
				c.push("type")
				if !(c.kind(m13) == kindString) {
					c.typeFailed(m13, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "v"); m14 >= 0 {
				c.push("v")
				if !(c.isInteger(m14)) {
					c.typeFailed(m14, "E-1", "integer", true)
				} else {
					if !c.intIs(m14, 1) {
						c.constFailed(m14, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_failed applies s2c/run.failed.
func compiled_s2c_run_failed(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "error") < 0 {
						c.fail("error", "F-1", "required field \"error\" is missing")
					}
					if c.t.member(m1, "status") < 0 {
						c.fail("status", "F-1", "required field \"status\" is missing")
					}
					if m2 := c.t.member(m1, "error"); m2 >= 0 {
						c.push("error")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-4", "string", false)
						} else {
							if c.kind(m2) == kindString {
								if c.runes(m2) < 1 {
									c.lengthFailed(m2, "F-4", "at least", 1)
								}
							}
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "run_id"); m3 >= 0 {
						c.push("run_id")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "status"); m4 >= 0 {
						c.push("status")
						if !c.textIs(m4, "failed") {
							c.constFailed(m4, "F-1", "\"failed\"")
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m5 := c.t.member(n0, "type"); m5 >= 0 {
			c.push("type")
			if !c.textIs(m5, "run.failed") {
				c.constFailed(m5, "E-1", "\"run.failed\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m6 := c.t.member(n0, "event_id"); m6 >= 0 {
				c.push("event_id")
				if !(c.kind(m6) == kindString) {
					c.typeFailed(m6, "E-3", "string", false)
				} else {
					if c.kind(m6) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m6, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "payload"); m7 >= 0 {
				c.push("payload")
				if !(c.kind(m7) == kindObject) {
					c.typeFailed(m7, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "run_id"); m8 >= 0 {
				c.push("run_id")
				if !(c.kind(m8) == kindString || c.kind(m8) == kindNull) {
					c.typeFailed(m8, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "seq"); m9 >= 0 {
				c.push("seq")
				if !(c.isInteger(m9)) {
					c.typeFailed(m9, "E-1", "integer", true)
				} else {
					if c.kind(m9) == kindNumber {
						if c.numCmp(m9, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m9, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "task_id"); m10 >= 0 {
				c.push("task_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "ts"); m11 >= 0 {
				c.push("ts")
				if !(c.kind(m11) == kindNumber) {
					c.typeFailed(m11, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "type"); m12 >= 0 {
				c.push("type")
				if !(c.kind(m12) == kindString) {
					c.typeFailed(m12, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "v"); m13 >= 0 {
				c.push("v")
				if !(c.isInteger(m13)) {
					c.typeFailed(m13, "E-1", "integer", true)
				} else {
					if !c.intIs(m13, 1) {
						c.constFailed(m13, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_interim applies s2c/run.interim.
func compiled_s2c_run_interim(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "text") < 0 {
						c.fail("text", "F-1", "required field \"text\" is missing")
					}
					if c.t.member(m1, "already_streamed") < 0 {
						c.fail("already_streamed", "F-1", "required field \"already_streamed\" is missing")
					}
					if m2 := c.t.member(m1, "already_streamed"); m2 >= 0 {
						c.push("already_streamed")
						if !(c.kind(m2) == kindTrue || c.kind(m2) == kindFalse) {
							c.typeFailed(m2, "F-1", "boolean", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "run_id"); m3 >= 0 {
						c.push("run_id")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "text"); m4 >= 0 {
						c.push("text")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m5 := c.t.member(n0, "type"); m5 >= 0 {
			c.push("type")
			if !c.textIs(m5, "run.interim") {
				c.constFailed(m5, "E-1", "\"run.interim\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m6 := c.t.member(n0, "event_id"); m6 >= 0 {
				c.push("event_id")
				if !(c.kind(m6) == kindString) {
					c.typeFailed(m6, "E-3", "string", false)
				} else {
					if c.kind(m6) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m6, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m7 := c.t.member(n0, "payload"); m7 >= 0 {
				c.push("payload")
				if !(c.kind(m7) == kindObject) {
					c.typeFailed(m7, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m8 := c.t.member(n0, "run_id"); m8 >= 0 {
				c.push("run_id")
				if !(c.kind(m8) == kindString || c.kind(m8) == kindNull) {
					c.typeFailed(m8, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m9 := c.t.member(n0, "seq"); m9 >= 0 {
				c.push("seq")
				if !(c.isInteger(m9)) {
					c.typeFailed(m9, "E-1", "integer", true)
				} else {
					if c.kind(m9) == kindNumber {
						if c.numCmp(m9, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m9, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "task_id"); m10 >= 0 {
				c.push("task_id")
				if !(c.kind(m10) == kindString || c.kind(m10) == kindNull) {
					c.typeFailed(m10, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "ts"); m11 >= 0 {
				c.push("ts")
				if !(c.kind(m11) == kindNumber) {
					c.typeFailed(m11, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "type"); m12 >= 0 {
				c.push("type")
				if !(c.kind(m12) == kindString) {
					c.typeFailed(m12, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "v"); m13 >= 0 {
				c.push("v")
				if !(c.isInteger(m13)) {
					c.typeFailed(m13, "E-1", "integer", true)
				} else {
					if !c.intIs(m13, 1) {
						c.constFailed(m13, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_started applies s2c/run.started.
func compiled_s2c_run_started(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "task_id") < 0 {
						c.fail("task_id", "F-1", "required field \"task_id\" is missing")
					}
					if c.t.member(m1, "session_id") < 0 {
						c.fail("session_id", "F-1", "required field \"session_id\" is missing")
					}
					if c.t.member(m1, "surface") < 0 {
						c.fail("surface", "F-1", "required field \"surface\" is missing")
					}
					if c.t.member(m1, "model") < 0 {
						c.fail("model", "F-1", "required field \"model\" is missing")
					}
					if c.t.member(m1, "provider") < 0 {
						c.fail("provider", "F-1", "required field \"provider\" is missing")
					}
					if c.t.member(m1, "started_at") < 0 {
						c.fail("started_at", "F-1", "required field \"started_at\" is missing")
					}
					if c.t.member(m1, "title") < 0 {
						c.fail("title", "F-1", "required field \"title\" is missing")
					}
					if m2 := c.t.member(m1, "model"); m2 >= 0 {
						c.push("model")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "provider"); m3 >= 0 {
						c.push("provider")
						if !(c.kind(m3) == kindString) {
							c.typeFailed(m3, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "run_id"); m4 >= 0 {
						c.push("run_id")
						if !(c.kind(m4) == kindString) {
							c.typeFailed(m4, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "session_id"); m5 >= 0 {
						c.push("session_id")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "started_at"); m6 >= 0 {
						c.push("started_at")
						if !(c.kind(m6) == kindNumber) {
							c.typeFailed(m6, "T-7", "number", false)
						} else {
						}
						c.pop()
					}
					if m7 := c.t.member(m1, "surface"); m7 >= 0 {
						c.push("surface")
						if !(c.kind(m7) == kindString) {
							c.typeFailed(m7, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m8 := c.t.member(m1, "task_id"); m8 >= 0 {
						c.push("task_id")
						if !(c.kind(m8) == kindString) {
							c.typeFailed(m8, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m9 := c.t.member(m1, "title"); m9 >= 0 {
						c.push("title")
						if !(c.kind(m9) == kindString || c.kind(m9) == kindNull) {
							c.typeFailed(m9, "F-1", "string or null", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m10 := c.t.member(n0, "type"); m10 >= 0 {
			c.push("type")
			if !c.textIs(m10, "run.started") {
				c.constFailed(m10, "E-1", "\"run.started\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m11 := c.t.member(n0, "event_id"); m11 >= 0 {
				c.push("event_id")
				if !(c.kind(m11) == kindString) {
					c.typeFailed(m11, "E-3", "string", false)
				} else {
					if c.kind(m11) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m11, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "payload"); m12 >= 0 {
				c.push("payload")
				if !(c.kind(m12) == kindObject) {
					c.typeFailed(m12, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "run_id"); m13 >= 0 {
				c.push("run_id")
				if !(c.kind(m13) == kindString || c.kind(m13) == kindNull) {
					c.typeFailed(m13, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "seq"); m14 >= 0 {
				c.push("seq")
				if !(c.isInteger(m14)) {
					c.typeFailed(m14, "E-1", "integer", true)
				} else {
					if c.kind(m14) == kindNumber {
						if c.numCmp(m14, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m14, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "task_id"); m15 >= 0 {
				c.push("task_id")
				if !(c.kind(m15) == kindString || c.kind(m15) == kindNull) {
					c.typeFailed(m15, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "ts"); m16 >= 0 {
				c.push("ts")
				if !(c.kind(m16) == kindNumber) {
					c.typeFailed(m16, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m17 := c.t.member(n0, "type"); m17 >= 0 {
				c.push("type")
				if !(c.kind(m17) == kindString) {
					c.typeFailed(m17, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m18 := c.t.member(n0, "v"); m18 >= 0 {
				c.push("v")
				if !(c.isInteger(m18)) {
					c.typeFailed(m18, "E-1", "integer", true)
				} else {
					if !c.intIs(m18, 1) {
						c.constFailed(m18, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_tool_finished applies s2c/run.tool_finished.
func compiled_s2c_run_tool_finished(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "iteration") < 0 {
						c.fail("iteration", "F-1", "required field \"iteration\" is missing")
					}
					if c.t.member(m1, "tool") < 0 {
						c.fail("tool", "F-1", "required field \"tool\" is missing")
					}
					if c.t.member(m1, "ok") < 0 {
						c.fail("ok", "F-1", "required field \"ok\" is missing")
					}
					if c.t.member(m1, "index") < 0 {
						c.fail("index", "F-1", "required field \"index\" is missing")
					}
					if c.t.member(m1, "call_id") < 0 {
						c.fail("call_id", "F-1", "required field \"call_id\" is missing")
					}
					if c.t.member(m1, "duration") < 0 {
						c.fail("duration", "F-1", "required field \"duration\" is missing")
					}
					if m2 := c.t.member(m1, "call_id"); m2 >= 0 {
						c.push("call_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-3", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "duration"); m3 >= 0 {
						c.push("duration")
						if !(c.kind(m3) == kindNumber) {
							c.typeFailed(m3, "F-1", "number", false)
						} else {
							if c.kind(m3) == kindNumber {
								if c.numCmp(m3, 0) < 0 {
									c.fail("", "F-1", "must be >= 0")
								}
							}
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "index"); m4 >= 0 {
						c.push("index")
						if !(c.isInteger(m4)) {
							c.typeFailed(m4, "F-3", "integer", true)
						} else {
							if c.kind(m4) == kindNumber {
								if c.numCmp(m4, 0) < 0 {
									c.fail("", "F-3", "must be >= 0")
								}
								if c.numCmp(m4, 9007199254740991) > 0 {
									c.fail("", "F-3", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "iteration"); m5 >= 0 {
						c.push("iteration")
						if !(c.isInteger(m5)) {
							c.typeFailed(m5, "F-1", "integer", true)
						} else {
							if c.kind(m5) == kindNumber {
								if c.numCmp(m5, 0) < 0 {
									c.fail("", "F-1", "must be >= 0")
								}
								if c.numCmp(m5, 9007199254740991) > 0 {
									c.fail("", "F-1", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "ok"); m6 >= 0 {
						c.push("ok")
						if !(c.kind(m6) == kindTrue || c.kind(m6) == kindFalse) {
							c.typeFailed(m6, "F-1", "boolean", false)
						} else {
						}
						c.pop()
					}
					if m7 := c.t.member(m1, "run_id"); m7 >= 0 {
						c.push("run_id")
						if !(c.kind(m7) == kindString) {
							c.typeFailed(m7, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m8 := c.t.member(m1, "tool"); m8 >= 0 {
						c.push("tool")
						if !(c.kind(m8) == kindString) {
							c.typeFailed(m8, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m9 := c.t.member(n0, "type"); m9 >= 0 {
			c.push("type")
			if !c.textIs(m9, "run.tool_finished") {
				c.constFailed(m9, "E-1", "\"run.tool_finished\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m10 := c.t.member(n0, "event_id"); m10 >= 0 {
				c.push("event_id")
				if !(c.kind(m10) == kindString) {
					c.typeFailed(m10, "E-3", "string", false)
				} else {
					if c.kind(m10) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m10, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "payload"); m11 >= 0 {
				c.push("payload")
				if !(c.kind(m11) == kindObject) {
					c.typeFailed(m11, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "run_id"); m12 >= 0 {
				c.push("run_id")
				if !(c.kind(m12) == kindString || c.kind(m12) == kindNull) {
					c.typeFailed(m12, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "seq"); m13 >= 0 {
				c.push("seq")
				if !(c.isInteger(m13)) {
					c.typeFailed(m13, "E-1", "integer", true)
				} else {
					if c.kind(m13) == kindNumber {
						if c.numCmp(m13, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m13, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "task_id"); m14 >= 0 {
				c.push("task_id")
				if !(c.kind(m14) == kindString || c.kind(m14) == kindNull) {
					c.typeFailed(m14, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "ts"); m15 >= 0 {
				c.push("ts")
				if !(c.kind(m15) == kindNumber) {
					c.typeFailed(m15, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "type"); m16 >= 0 {
				c.push("type")
				if !(c.kind(m16) == kindString) {
					c.typeFailed(m16, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m17 := c.t.member(n0, "v"); m17 >= 0 {
				c.push("v")
				if !(c.isInteger(m17)) {
					c.typeFailed(m17, "E-1", "integer", true)
				} else {
					if !c.intIs(m17, 1) {
						c.constFailed(m17, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_run_tool_started applies s2c/run.tool_started.
func compiled_s2c_run_tool_started(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-1", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "run_id") < 0 {
						c.fail("run_id", "F-1", "required field \"run_id\" is missing")
					}
					if c.t.member(m1, "iteration") < 0 {
						c.fail("iteration", "F-1", "required field \"iteration\" is missing")
					}
					if c.t.member(m1, "tool") < 0 {
						c.fail("tool", "F-1", "required field \"tool\" is missing")
					}
					if c.t.member(m1, "preview") < 0 {
						c.fail("preview", "F-1", "required field \"preview\" is missing")
					}
					if c.t.member(m1, "index") < 0 {
						c.fail("index", "F-1", "required field \"index\" is missing")
					}
					if c.t.member(m1, "call_id") < 0 {
						c.fail("call_id", "F-1", "required field \"call_id\" is missing")
					}
					if m2 := c.t.member(m1, "call_id"); m2 >= 0 {
						c.push("call_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-3", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "index"); m3 >= 0 {
						c.push("index")
						if !(c.isInteger(m3)) {
							c.typeFailed(m3, "F-3", "integer", true)
						} else {
							if c.kind(m3) == kindNumber {
								if c.numCmp(m3, 0) < 0 {
									c.fail("", "F-3", "must be >= 0")
								}
								if c.numCmp(m3, 9007199254740991) > 0 {
									c.fail("", "F-3", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m4 := c.t.member(m1, "iteration"); m4 >= 0 {
						c.push("iteration")
						if !(c.isInteger(m4)) {
							c.typeFailed(m4, "F-1", "integer", true)
						} else {
							if c.kind(m4) == kindNumber {
								if c.numCmp(m4, 0) < 0 {
									c.fail("", "F-1", "must be >= 0")
								}
								if c.numCmp(m4, 9007199254740991) > 0 {
									c.fail("", "F-1", "must be <= 9007199254740991")
								}
							}
						}
						c.pop()
					}
					if m5 := c.t.member(m1, "preview"); m5 >= 0 {
						c.push("preview")
						if !(c.kind(m5) == kindString) {
							c.typeFailed(m5, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m6 := c.t.member(m1, "run_id"); m6 >= 0 {
						c.push("run_id")
						if !(c.kind(m6) == kindString) {
							c.typeFailed(m6, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
					if m7 := c.t.member(m1, "tool"); m7 >= 0 {
						c.push("tool")
						if !(c.kind(m7) == kindString) {
							c.typeFailed(m7, "F-1", "string", false)
						} else {
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m8 := c.t.member(n0, "type"); m8 >= 0 {
			c.push("type")
			if !c.textIs(m8, "run.tool_started") {
				c.constFailed(m8, "E-1", "\"run.tool_started\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m9 := c.t.member(n0, "event_id"); m9 >= 0 {
				c.push("event_id")
				if !(c.kind(m9) == kindString) {
					c.typeFailed(m9, "E-3", "string", false)
				} else {
					if c.kind(m9) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m9, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m10 := c.t.member(n0, "payload"); m10 >= 0 {
				c.push("payload")
				if !(c.kind(m10) == kindObject) {
					c.typeFailed(m10, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m11 := c.t.member(n0, "run_id"); m11 >= 0 {
				c.push("run_id")
				if !(c.kind(m11) == kindString || c.kind(m11) == kindNull) {
					c.typeFailed(m11, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m12 := c.t.member(n0, "seq"); m12 >= 0 {
				c.push("seq")
				if !(c.isInteger(m12)) {
					c.typeFailed(m12, "E-1", "integer", true)
				} else {
					if c.kind(m12) == kindNumber {
						if c.numCmp(m12, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m12, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m13 := c.t.member(n0, "task_id"); m13 >= 0 {
				c.push("task_id")
				if !(c.kind(m13) == kindString || c.kind(m13) == kindNull) {
					c.typeFailed(m13, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m14 := c.t.member(n0, "ts"); m14 >= 0 {
				c.push("ts")
				if !(c.kind(m14) == kindNumber) {
					c.typeFailed(m14, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m15 := c.t.member(n0, "type"); m15 >= 0 {
				c.push("type")
				if !(c.kind(m15) == kindString) {
					c.typeFailed(m15, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m16 := c.t.member(n0, "v"); m16 >= 0 {
				c.push("v")
				if !(c.isInteger(m16)) {
					c.typeFailed(m16, "E-1", "integer", true)
				} else {
					if !c.intIs(m16, 1) {
						c.constFailed(m16, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}

// compiled_s2c_task_list_result applies s2c/task.list.result.
func compiled_s2c_task_list_result(c *checker, n0 int32) {
	if c.kind(n0) == kindObject {
		if m1 := c.t.member(n0, "payload"); m1 >= 0 {
			c.push("payload")
			if !(c.kind(m1) == kindObject) {
				c.typeFailed(m1, "F-9", "object", false)
			} else {
				if c.kind(m1) == kindObject {
					if c.t.member(m1, "tasks") < 0 {
						c.fail("tasks", "F-9", "required field \"tasks\" is missing")
					}
					if m2 := c.t.member(m1, "request_id"); m2 >= 0 {
						c.push("request_id")
						if !(c.kind(m2) == kindString) {
							c.typeFailed(m2, "F-9", "string", false)
						} else {
						}
						c.pop()
					}
					if m3 := c.t.member(m1, "tasks"); m3 >= 0 {
						c.push("tasks")
						if !(c.kind(m3) == kindArray) {
							c.typeFailed(m3, "F-9", "array", false)
						} else {
							if c.kind(m3) == kindArray {
								i5 := 0
								for e4 := c.t.nodes[m3].first; e4 >= 0; e4 = c.t.nodes[e4].next {
									c.pushIndex(i5)
									if !(c.kind(e4) == kindObject) {
										c.typeFailed(e4, "F-9", "object", false)
									} else {
										if c.kind(e4) == kindObject {
											if c.t.member(e4, "task_id") < 0 {
												c.fail("task_id", "F-9", "required field \"task_id\" is missing")
											}
											if m6 := c.t.member(e4, "ended_at"); m6 >= 0 {
												c.push("ended_at")
												if !(c.kind(m6) == kindNumber || c.kind(m6) == kindNull) {
													c.typeFailed(m6, "T-7", "number or null", false)
												} else {
												}
												c.pop()
											}
											if m7 := c.t.member(e4, "last_active"); m7 >= 0 {
												c.push("last_active")
												if !(c.kind(m7) == kindNumber) {
													c.typeFailed(m7, "T-7", "number", false)
												} else {
												}
												c.pop()
											}
											if m8 := c.t.member(e4, "message_count"); m8 >= 0 {
												c.push("message_count")
												if !(c.isInteger(m8)) {
													c.typeFailed(m8, "F-9", "integer", true)
												} else {
													if c.kind(m8) == kindNumber {
														if c.numCmp(m8, 0) < 0 {
															c.fail("", "F-9", "must be >= 0")
														}
														if c.numCmp(m8, 9007199254740991) > 0 {
															c.fail("", "F-9", "must be <= 9007199254740991")
														}
													}
												}
												c.pop()
											}
											if m9 := c.t.member(e4, "model"); m9 >= 0 {
												c.push("model")
												if !(c.kind(m9) == kindString || c.kind(m9) == kindNull) {
													c.typeFailed(m9, "F-9", "string or null", false)
												} else {
												}
												c.pop()
											}
											if m10 := c.t.member(e4, "preview"); m10 >= 0 {
												c.push("preview")
												if !(c.kind(m10) == kindString) {
													c.typeFailed(m10, "F-9", "string", false)
												} else {
												}
												c.pop()
											}
											if m11 := c.t.member(e4, "source"); m11 >= 0 {
												c.push("source")
												if !(c.kind(m11) == kindString) {
													c.typeFailed(m11, "F-9", "string", false)
												} else {
												}
												c.pop()
											}
											if m12 := c.t.member(e4, "started_at"); m12 >= 0 {
												c.push("started_at")
												if !(c.kind(m12) == kindNumber) {
													c.typeFailed(m12, "T-7", "number", false)
												} else {
												}
												c.pop()
											}
											if m13 := c.t.member(e4, "status"); m13 >= 0 {
												c.push("status")
												if !(c.kind(m13) == kindString) {
													c.typeFailed(m13, "F-9", "string", false)
												} else {
												}
												c.pop()
											}
											if m14 := c.t.member(e4, "task_id"); m14 >= 0 {
												c.push("task_id")
												if !(c.kind(m14) == kindString) {
													c.typeFailed(m14, "F-9", "string", false)
												} else {
												}
												c.pop()
											}
											if m15 := c.t.member(e4, "title"); m15 >= 0 {
												c.push("title")
												if !(c.kind(m15) == kindString || c.kind(m15) == kindNull) {
													c.typeFailed(m15, "F-9", "string or null", false)
												} else {
												}
												c.pop()
											}
										}
									}
									c.pop()
									i5++
								}
							}
						}
						c.pop()
					}
				}
			}
			c.pop()
		}
		if m16 := c.t.member(n0, "type"); m16 >= 0 {
			c.push("type")
			if !c.textIs(m16, "task.list.result") {
				c.constFailed(m16, "E-1", "\"task.list.result\"")
			}
			c.pop()
		}
	}
	if !(c.kind(n0) == kindObject) {
		c.typeFailed(n0, "E-1", "object", false)
	} else {
		if c.kind(n0) == kindObject {
			if c.t.member(n0, "v") < 0 {
				c.fail("v", "E-1", "required field \"v\" is missing")
			}
			if c.t.member(n0, "seq") < 0 {
				c.fail("seq", "E-1", "required field \"seq\" is missing")
			}
			if c.t.member(n0, "ts") < 0 {
				c.fail("ts", "E-1", "required field \"ts\" is missing")
			}
			if c.t.member(n0, "type") < 0 {
				c.fail("type", "E-1", "required field \"type\" is missing")
			}
			if c.t.member(n0, "task_id") < 0 {
				c.fail("task_id", "E-1", "required field \"task_id\" is missing")
			}
			if c.t.member(n0, "run_id") < 0 {
				c.fail("run_id", "E-1", "required field \"run_id\" is missing")
			}
			if c.t.member(n0, "event_id") < 0 {
				c.fail("event_id", "E-1", "required field \"event_id\" is missing")
			}
			if c.t.member(n0, "payload") < 0 {
				c.fail("payload", "E-1", "required field \"payload\" is missing")
			}
			if m17 := c.t.member(n0, "event_id"); m17 >= 0 {
				c.push("event_id")
				if !(c.kind(m17) == kindString) {
					c.typeFailed(m17, "E-3", "string", false)
				} else {
					if c.kind(m17) == kindString {
						if !compiledPatterns[0].Match(c.t.text(m17, false)) {
							c.fail("", "E-3", "must match ^e_(0|[1-9][0-9]*)$")
						}
					}
				}
				c.pop()
			}
			if m18 := c.t.member(n0, "payload"); m18 >= 0 {
				c.push("payload")
				if !(c.kind(m18) == kindObject) {
					c.typeFailed(m18, "E-1", "object", false)
				} else {
				}
				c.pop()
			}
			if m19 := c.t.member(n0, "run_id"); m19 >= 0 {
				c.push("run_id")
				if !(c.kind(m19) == kindString || c.kind(m19) == kindNull) {
					c.typeFailed(m19, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m20 := c.t.member(n0, "seq"); m20 >= 0 {
				c.push("seq")
				if !(c.isInteger(m20)) {
					c.typeFailed(m20, "E-1", "integer", true)
				} else {
					if c.kind(m20) == kindNumber {
						if c.numCmp(m20, 0) < 0 {
							c.fail("", "E-1", "must be >= 0")
						}
						if c.numCmp(m20, 9007199254740991) > 0 {
							c.fail("", "E-1", "must be <= 9007199254740991")
						}
					}
				}
				c.pop()
			}
			if m21 := c.t.member(n0, "task_id"); m21 >= 0 {
				c.push("task_id")
				if !(c.kind(m21) == kindString || c.kind(m21) == kindNull) {
					c.typeFailed(m21, "E-1", "string or null", false)
				} else {
				}
				c.pop()
			}
			if m22 := c.t.member(n0, "ts"); m22 >= 0 {
				c.push("ts")
				if !(c.kind(m22) == kindNumber) {
					c.typeFailed(m22, "T-7", "number", false)
				} else {
				}
				c.pop()
			}
			if m23 := c.t.member(n0, "type"); m23 >= 0 {
				c.push("type")
				if !(c.kind(m23) == kindString) {
					c.typeFailed(m23, "E-1", "string", false)
				} else {
				}
				c.pop()
			}
			if m24 := c.t.member(n0, "v"); m24 >= 0 {
				c.push("v")
				if !(c.isInteger(m24)) {
					c.typeFailed(m24, "E-1", "integer", true)
				} else {
					if !c.intIs(m24, 1) {
						c.constFailed(m24, "E-1", "1")
					}
				}
				c.pop()
			}
		}
	}
}
