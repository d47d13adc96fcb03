/* The toolkit's floor for the gallery stage of pinhole-bench: the least a GTK 4 program does to
 * show a grid of thumbnails and scroll it. A 960×720 window (the camera app's size) with a header
 * bar over a GtkScrolledWindow holding a GtkGridView of ITEMS items (a GtkStringList), each cell
 * built as the app's are (a GtkOverlay over a 160×160 GtkPicture, content fit: cover, and two
 * hidden badges); binding a cell only hands it one of the first 16 thumbnails in THUMBNAILS,
 * decoded once at start, so nothing is read or decoded while scrolling. It prints to standard
 * error, as the app does with PINHOLE_BENCH_REPORT=1,
 *
 *     pinhole-bench: first-frame <ns>
 *     pinhole-bench: gallery-frame <before-paint ns> <after-paint ns> <value> <upper> <page> <first visible item>
 *
 * (CLOCK_MONOTONIC), the first at the first frame that painted a visible cell, then one line
 * per frame. It idles until it is sent SIGTERM.
 *
 * Usage: gtk4-grid-floor ITEMS THUMBNAILS
 *
 * pinhole-bench compiles it during the stage:
 *     cc -O2 -o gtk4-grid-floor gtk4-grid-floor.c $(pkg-config --cflags --libs gtk4)
 */
#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TEXTURES = 16 };

static GdkTexture *textures[TEXTURES];
static int texture_count;
static guint item_count;
static GtkWidget *scrolled;
static GHashTable *bound; /* GtkListItem * → itself, while bound */
static long long frame_start;
static gboolean reported_first;

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void say(const char *line) {
    if (write(STDERR_FILENO, line, strlen(line)) < 0) { /* nothing to do */ }
}

static void setup(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    GtkWidget *cell = gtk_overlay_new();
    GtkWidget *picture = gtk_picture_new();
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_COVER);
    gtk_widget_set_size_request(picture, 160, 160);
    gtk_overlay_set_child(GTK_OVERLAY(cell), picture);
    GtkWidget *badge = gtk_label_new("");
    gtk_widget_set_visible(badge, FALSE);
    gtk_overlay_add_overlay(GTK_OVERLAY(cell), badge);
    GtkWidget *star = gtk_image_new_from_icon_name("starred-symbolic");
    gtk_widget_set_visible(star, FALSE);
    gtk_overlay_add_overlay(GTK_OVERLAY(cell), star);
    gtk_list_item_set_child(item, cell);
}

static void bind(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    GtkWidget *picture = gtk_widget_get_first_child(gtk_list_item_get_child(item));
    guint position = gtk_list_item_get_position(item);
    gtk_picture_set_paintable(GTK_PICTURE(picture), texture_count ? GDK_PAINTABLE(textures[position % (guint)texture_count]) : NULL);
    g_hash_table_add(bound, item);
}

static void unbind(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    g_hash_table_remove(bound, item);
}

/* The smallest position among bound items whose cell lies in the scrolled window's viewport, or -1. */
static long first_visible(void) {
    float width = (float)gtk_widget_get_width(scrolled), height = (float)gtk_widget_get_height(scrolled);
    long first = -1;
    GHashTableIter iterator;
    gpointer key;
    g_hash_table_iter_init(&iterator, bound);
    while (g_hash_table_iter_next(&iterator, &key, NULL)) {
        GtkListItem *item = key;
        GtkWidget *cell = gtk_list_item_get_child(item);
        graphene_rect_t bounds;
        if (!cell || !gtk_widget_get_mapped(cell) || !gtk_widget_compute_bounds(cell, scrolled, &bounds)) continue;
        if (bounds.size.width <= 0 || bounds.size.height <= 0 || bounds.origin.y >= height || bounds.origin.y + bounds.size.height <= 0
            || bounds.origin.x >= width || bounds.origin.x + bounds.size.width <= 0) continue;
        long position = (long)gtk_list_item_get_position(item);
        if (first < 0 || position < first) first = position;
    }
    return first;
}

static void before_paint(GdkFrameClock *clock, gpointer data) {
    (void)clock;
    (void)data;
    frame_start = monotonic_ns();
}

static void after_paint(GdkFrameClock *clock, gpointer data) {
    (void)clock;
    (void)data;
    long long end = monotonic_ns();
    long first = first_visible();
    char line[200];
    if (!reported_first) {
        if (first < 0) return;
        reported_first = TRUE;
        snprintf(line, sizeof line, "pinhole-bench: first-frame %lld\n", end);
        say(line);
    }
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(scrolled));
    snprintf(line, sizeof line, "pinhole-bench: gallery-frame %lld %lld %.0f %.0f %.0f %ld\n", frame_start, end,
             gtk_adjustment_get_value(adjustment), gtk_adjustment_get_upper(adjustment), gtk_adjustment_get_page_size(adjustment), first);
    say(line);
}

static void realized(GtkWidget *window, gpointer data) {
    (void)data;
    GdkFrameClock *clock = gtk_widget_get_frame_clock(window);
    g_signal_connect(clock, "before-paint", G_CALLBACK(before_paint), NULL);
    g_signal_connect(clock, "after-paint", G_CALLBACK(after_paint), NULL);
}

static void activate(GtkApplication *app, gpointer data) {
    (void)data;
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "GTK 4 grid floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 720);
    gtk_window_set_titlebar(GTK_WINDOW(window), gtk_header_bar_new());
    GtkStringList *names = gtk_string_list_new(NULL);
    char number[16];
    for (guint index = 0; index < item_count; index++) {
        snprintf(number, sizeof number, "%u", index);
        gtk_string_list_append(names, number);
    }
    GtkSingleSelection *selection = gtk_single_selection_new(G_LIST_MODEL(names));
    gtk_single_selection_set_autoselect(selection, FALSE);
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(bind), NULL);
    g_signal_connect(factory, "unbind", G_CALLBACK(unbind), NULL);
    GtkWidget *grid = gtk_grid_view_new(GTK_SELECTION_MODEL(selection), factory);
    gtk_grid_view_set_max_columns(GTK_GRID_VIEW(grid), 12);
    gtk_grid_view_set_min_columns(GTK_GRID_VIEW(grid), 2);
    scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), grid);
    gtk_window_set_child(GTK_WINDOW(window), scrolled);
    g_signal_connect(window, "realize", G_CALLBACK(realized), NULL);
    gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gtk4-grid-floor ITEMS THUMBNAILS\n");
        return 2;
    }
    item_count = (guint)strtoul(argv[1], NULL, 10);
    bound = g_hash_table_new(NULL, NULL);
    GDir *folder = g_dir_open(argv[2], 0, NULL);
    const char *name;
    while (folder && texture_count < TEXTURES && (name = g_dir_read_name(folder))) {
        if (!g_str_has_suffix(name, ".png")) continue;
        char *path = g_build_filename(argv[2], name, NULL);
        GdkTexture *texture = gdk_texture_new_from_filename(path, NULL);
        g_free(path);
        if (texture) textures[texture_count++] = texture;
    }
    if (folder) g_dir_close(folder);
    if (texture_count == 0) {
        fprintf(stderr, "gtk4-grid-floor: no PNG thumbnails in %s\n", argv[2]);
        return 2;
    }
    GtkApplication *app = gtk_application_new("io.github.pinhole.BenchGridFloor", G_APPLICATION_DEFAULT_FLAGS);
    g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
    int status = g_application_run(G_APPLICATION(app), 1, argv);
    g_object_unref(app);
    return status;
}
