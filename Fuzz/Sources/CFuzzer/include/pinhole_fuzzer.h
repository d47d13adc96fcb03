// libFuzzer's driver, which `-sanitize=fuzzer` links: pinhole-fuzz's `main` hands it the command
// line and the target (SwiftPM names an executable's entry point itself, so libFuzzer's own
// `main` cannot be used).
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with its command-line flags over `callback`, one input at a time.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
