// Sysprof's capture library (libsysprof-capture-4, a static library in Debian's libsysprof-4-dev):
// the collector sends marks to the profiler that started the process (SYSPROF_CONTROL_FD) and
// does nothing otherwise; the reader reads a capture file back (the app's marks test).
#include <stdbool.h>
#include <sysprof-4/sysprof-capture.h>

// A mark's group, name and message (fixed and flexible arrays, which Swift does not import as strings).
static inline const char *pinhole_sysprof_mark_group(const SysprofCaptureMark *mark) { return mark->group; }
static inline const char *pinhole_sysprof_mark_name(const SysprofCaptureMark *mark) { return mark->name; }
static inline const char *pinhole_sysprof_mark_message(const SysprofCaptureMark *mark) { return mark->message; }
