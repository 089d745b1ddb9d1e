// The reader of words' check in WebKitGTK, the web view of Spark's window
// on Linux, set up as Wails v2 does it (internal/frontend/desktop/linux/
// window.c: the "wails" URI scheme registered on the default context and
// nothing more; the app at wails://wails/). It serves DIST (frontend/dist)
// through that scheme, and PAGEFILE as wails://wails/ocr-check.html; the
// page's script puts its result, a JSON object, in its title, which this
// prints on one line before it quits. Each address asked for is written
// to stderr as "wk: URL" (a page may ask for one that is not there, such
// as wails://wails/mark/..., to say where it is). With PHOTOS, the files
// of that folder are served as wails://wails/photos/NAME too. It quits
// after OCR_WEBKIT_SECONDS (300) whatever the page does. Built and run by
// e2e/tests/ocr.test.mjs and `spark-bench words` (cmd/spark-bench/words.go):
//   gcc -O1 -o ocr-webkit ocr-webkit.c $(pkg-config --cflags --libs webkit2gtk-4.0)
//   xvfb-run -a ./ocr-webkit frontend/dist page.html [PHOTOS]
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

static const char *root;
static const char *photos;
static const char *page_html;

static const char *mime(const char *p) {
  const char *e = strrchr(p, '.');
  if (!e) return "application/octet-stream";
  if (!strcmp(e, ".html")) return "text/html";
  if (!strcmp(e, ".js")) return "text/javascript";
  if (!strcmp(e, ".json")) return "application/json";
  if (!strcmp(e, ".gz")) return "application/gzip";
  if (!strcmp(e, ".jpg")) return "image/jpeg";
  if (!strcmp(e, ".png")) return "image/png";
  return "application/octet-stream";
}

static void serve(WebKitURISchemeRequest *req, gpointer data) {
  const char *path = webkit_uri_scheme_request_get_path(req);
  fprintf(stderr, "wk: %s\n", webkit_uri_scheme_request_get_uri(req));
  if (!strcmp(path, "/ocr-check.html")) {
    GInputStream *s = g_memory_input_stream_new_from_data(g_strdup(page_html), strlen(page_html), g_free);
    webkit_uri_scheme_request_finish(req, s, strlen(page_html), "text/html");
    g_object_unref(s);
    return;
  }
  const char *dir = root;
  if (photos && g_str_has_prefix(path, "/photos/")) {
    dir = photos;
    path += strlen("/photos");
  }
  gchar *file = g_build_filename(dir, path, NULL);
  gchar *contents; gsize len; GError *err = NULL;
  if (strstr(path, "..") || !g_file_get_contents(file, &contents, &len, &err)) {
    GError *e = g_error_new(G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "not found: %s", path);
    webkit_uri_scheme_request_finish_error(req, e);
    g_error_free(e);
    if (err) g_error_free(err);
    g_free(file);
    return;
  }
  GInputStream *s = g_memory_input_stream_new_from_data(contents, len, g_free);
  webkit_uri_scheme_request_finish(req, s, len, mime(path));
  g_object_unref(s);
  g_free(file);
}

static void titled(GObject *o, GParamSpec *p, gpointer d) {
  const char *t = webkit_web_view_get_title(WEBKIT_WEB_VIEW(o));
  if (t && t[0] == '{') {
    printf("%s\n", t);
    fflush(stdout);
    gtk_main_quit();
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) { fprintf(stderr, "usage: ocr-webkit DIST PAGEFILE [PHOTOS]\n"); return 2; }
  root = argv[1];
  if (argc == 4) photos = argv[3];
  const char *secs = g_getenv("OCR_WEBKIT_SECONDS");
  guint limit = secs && atoi(secs) > 0 ? (guint)atoi(secs) : 300;
  gsize n; gchar *html;
  if (!g_file_get_contents(argv[2], &html, &n, NULL)) return 2;
  page_html = html;
  gtk_init(&argc, &argv);
  WebKitWebContext *ctx = webkit_web_context_get_default();
  webkit_web_context_register_uri_scheme(ctx, "wails", serve, NULL, NULL);
  GtkWidget *w = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  gtk_window_set_default_size(GTK_WINDOW(w), 800, 600);
  GtkWidget *v = webkit_web_view_new();
  gtk_container_add(GTK_CONTAINER(w), v);
  g_signal_connect(v, "notify::title", G_CALLBACK(titled), NULL);
  webkit_web_view_load_uri(WEBKIT_WEB_VIEW(v), "wails://wails/ocr-check.html");
  gtk_widget_show_all(w);
  g_timeout_add_seconds(limit, (GSourceFunc)gtk_main_quit, NULL);
  gtk_main();
  return 0;
}
