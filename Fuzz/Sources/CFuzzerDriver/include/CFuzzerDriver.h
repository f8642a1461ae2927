#ifndef EVICTIONLAB_CFUZZERDRIVER_H
#define EVICTIONLAB_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): runs the
// fuzzing loop with the command-line arguments libFuzzer understands.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
