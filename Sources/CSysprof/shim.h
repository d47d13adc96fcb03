// Sysprof's collector (libsysprof-capture-4, a static library in Debian's libsysprof-4-dev): marks
// sent to the profiler that started the process (SYSPROF_CONTROL_FD), nothing otherwise.
#include <stdbool.h>
#include <sysprof-4/sysprof-collector.h>
