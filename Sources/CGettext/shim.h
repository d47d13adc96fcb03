// gettext for the `pinhole` command without GTK: glibc implements it (libintl.h), but Swift's
// Glibc module does not export these functions. Nothing to link: they are in libc.
#include <libintl.h>
#include <locale.h>
