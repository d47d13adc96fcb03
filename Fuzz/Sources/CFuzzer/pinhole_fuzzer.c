// Only the header's declaration: the definition is libFuzzer's.
#include "pinhole_fuzzer.h"
