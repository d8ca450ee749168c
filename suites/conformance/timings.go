package conformance

// SkipTimingsDeviate starts the skip reason of the timing profile's spec
// on a target whose timings are not the spec's (Profile.Deviations),
// without --strict: a test profile deviates on purpose.
const SkipTimingsDeviate = "timings deviate from the spec (a failure only under --strict): "
