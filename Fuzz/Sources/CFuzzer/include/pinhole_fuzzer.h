// libFuzzer's driver, which `-sanitize=fuzzer` links: pinhole-fuzz's `main` hands it the command
// line and the target (SwiftPM names an executable's entry point itself, so libFuzzer's own
// `main` cannot be used).
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with its command-line flags over `callback`, one input at a time.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// libFuzzer's own mutations of `data` (`size` bytes of a buffer of `max_size`): the new size.
/// A custom mutator (pinhole-fuzz's `LLVMFuzzerCustomMutator`) calls it for byte-level changes.
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
