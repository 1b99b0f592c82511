/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Folded stacks and the SVG flame graph of perfring-export.
 *
 * Folded: one line per distinct stack, "COMM;OUTER;...;LEAF COUNT", the
 * lines sorted, COUNT the number of samples (what stackcollapse-perf.pl
 * prints for perf script output).  Frame names: the function as perf report
 * prints it; a frame in a known binary without a symbol is "[BINARY]" (its
 * base name), one outside any mapping "[unknown]"; kernel frames end in
 * "_[k]" (stackcollapse-perf.pl --kernel's mark) so that they can be told
 * and coloured apart.  Spaces and ';' in names become '_' (';' separates
 * frames).
 *
 * SVG: one self-contained file.  The layout is computed here (a tree of
 * the folded stacks, widths proportional to samples, the root at the
 * bottom); the embedded script only rescales it: click a frame to zoom to
 * it, "Reset Zoom" to go back, "Search" to highlight frames matching a
 * regular expression and show their share.  The script also names the
 * function with the most samples of its own in the status line ("hottest:
 * NAME"), which the tests read from the rendered page.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "export.h"

static void clean_name(GString *out, const char *s)
{
	for (; *s; s++)
		g_string_append_c(out, (*s == ' ' || *s == ';' || *s == '\n') ? '_' : *s);
}

char *ex_frame_name(const struct ex_profile *p, uint32_t loc)
{
	const struct ex_location *l = &g_array_index(p->locations, struct ex_location, loc - 1);
	GString *s = g_string_new(NULL);

	if (l->function) {
		clean_name(s, g_array_index(p->functions, struct ex_function,
					    l->function - 1).name);
	} else if (l->mapping) {
		const struct ex_mapping *m =
			&g_array_index(p->mappings, struct ex_mapping, l->mapping - 1);
		const char *b = strrchr(m->file, '/');

		if (m->file[0] == '[') {	/* [vdso], [heap], ... */
			clean_name(s, m->file);
		} else {
			g_string_append_c(s, '[');
			clean_name(s, b && b[1] ? b + 1 : m->file);
			g_string_append_c(s, ']');
		}
	} else {
		g_string_append(s, "[unknown]");
	}
	if (l->kernel)
		g_string_append(s, "_[k]");
	return g_string_free(s, FALSE);
}

/* Folded stack -> samples, for the samples of event ev. */
static GHashTable *fold(const struct ex_profile *p, uint32_t ev)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char **names = g_new0(char *, p->locations->len + 1);
	GString *k = g_string_new(NULL);

	for (guint i = 0; i < p->samples->len; i++) {
		const struct ex_sample *s = &g_array_index(p->samples, struct ex_sample, i);
		uint64_t *v;

		if (s->event != ev)
			continue;
		g_string_truncate(k, 0);
		clean_name(k, p->comms->pdata[s->comm]);
		for (uint32_t j = s->nframes; j-- > 0;) {
			uint32_t id = s->frames[j];

			if (!names[id])
				names[id] = ex_frame_name(p, id);
			g_string_append_c(k, ';');
			g_string_append(k, names[id]);
		}
		v = g_hash_table_lookup(h, k->str);
		if (!v) {
			v = g_new0(uint64_t, 1);
			g_hash_table_insert(h, g_strdup(k->str), v);
		}
		*v += s->count;
	}
	for (guint i = 0; i <= p->locations->len; i++)
		g_free(names[i]);
	g_free(names);
	g_string_free(k, TRUE);
	return h;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static GPtrArray *sorted_keys(GHashTable *h)
{
	GPtrArray *keys = g_ptr_array_new();
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_ptr_array_add(keys, k);
	g_ptr_array_sort(keys, cmp_str);
	return keys;
}

int ex_write_folded(const struct ex_profile *p, uint32_t ev, FILE *fp)
{
	GHashTable *h = fold(p, ev);
	GPtrArray *keys = sorted_keys(h);

	for (guint i = 0; i < keys->len; i++)
		fprintf(fp, "%s %" G_GUINT64_FORMAT "\n", (char *)keys->pdata[i],
			*(uint64_t *)g_hash_table_lookup(h, keys->pdata[i]));
	g_ptr_array_free(keys, TRUE);
	g_hash_table_destroy(h);
	return ferror(fp) ? -EIO : 0;
}

/* ---- the flame graph -------------------------------------------------------- */

struct node {
	char *name;
	uint64_t value;
	GPtrArray *kids;	/* struct node *, in name order (folded lines are sorted) */
};

static struct node *node_new(const char *name, size_t len)
{
	struct node *n = g_new0(struct node, 1);

	n->name = g_strndup(name, len);
	n->kids = g_ptr_array_new();
	return n;
}

static void node_free(struct node *n)
{
	for (guint i = 0; i < n->kids->len; i++)
		node_free(n->kids->pdata[i]);
	g_ptr_array_free(n->kids, TRUE);
	g_free(n->name);
	g_free(n);
}

/* Add a sorted folded line: the last child is the only one a frame of
 * this line can share with the previous lines. */
static void node_add(struct node *root, const char *line, uint64_t v)
{
	struct node *n = root;
	const char *p = line;

	root->value += v;
	while (*p) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		struct node *last = n->kids->len ? n->kids->pdata[n->kids->len - 1] : NULL;

		if (!last || strlen(last->name) != len || memcmp(last->name, p, len)) {
			last = node_new(p, len);
			g_ptr_array_add(n->kids, last);
		}
		last->value += v;
		n = last;
		p = e ? e + 1 : p + len;
	}
}

static unsigned node_depth(const struct node *n)
{
	unsigned d = 0;

	for (guint i = 0; i < n->kids->len; i++) {
		unsigned k = node_depth(n->kids->pdata[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

static void xml_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, fp);
		}
	}
}

#define FG_WIDTH 1200.0
#define FG_ROW 16
#define FG_TOP 40	/* title and buttons */
#define FG_BOTTOM 24	/* status line */
#define FG_MIN_WIDTH 0.1	/* frames narrower (px) are left out */

static void color(const char *name, char out[32])
{
	unsigned h = 5381;
	size_t n = strlen(name);

	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	if (n > 4 && strcmp(name + n - 4, "_[k]") == 0)
		snprintf(out, 32, "rgb(%u,%u,%u)", 200 + h % 55, 120 + (h >> 8) % 60, 40);
	else if (name[0] == '[')
		snprintf(out, 32, "rgb(%u,%u,%u)", 170 + h % 30, 170 + h % 30, 170 + h % 30);
	else
		snprintf(out, 32, "rgb(%u,%u,%u)", 215 + h % 40, 90 + (h >> 8) % 130, 40 + (h >> 16) % 50);
}

/* Frames as <g class="f" data-x data-w data-d> with title, rect and text;
 * data-x and data-w are fractions of the total, data-d the depth. */
static void emit(FILE *fp, const struct node *n, double x, unsigned depth, unsigned height,
		 uint64_t total)
{
	double w = (double)n->value / (double)total;
	double y = height - FG_BOTTOM - (double)(depth + 1) * FG_ROW;
	char col[32];
	uint64_t self;

	if (w * FG_WIDTH < FG_MIN_WIDTH)
		return;
	color(n->name, col);
	self = n->value;
	for (guint i = 0; i < n->kids->len; i++)
		self -= ((const struct node *)n->kids->pdata[i])->value;
	fprintf(fp, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" "
		"data-s=\"%.9f\"><title>", x, w, depth, (double)self / (double)total);
	xml_text(fp, n->name);
	fprintf(fp, " (%" G_GUINT64_FORMAT " samples, %.2f%%)</title>"
		"<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.0f\">",
		n->value, 100.0 * w, 10 + x * FG_WIDTH, y, w * FG_WIDTH, FG_ROW - 1, col,
		13 + x * FG_WIDTH, y + FG_ROW - 4);
	xml_text(fp, n->name);
	fputs("</text></g>\n", fp);
	for (guint i = 0; i < n->kids->len; i++) {
		const struct node *k = n->kids->pdata[i];

		emit(fp, k, x, depth + 1, height, total);
		x += (double)k->value / (double)total;
	}
}

/* The script: zoom, reset, search, the hottest function.  Frames know
 * their place from data-x/-w/-d (data-s: their own share); zooming maps [zx, zx + zw) onto the width. */
static const char fg_script[] =
	"var W=" G_STRINGIFY(FG_WIDTH) ",zx=0,zw=1,zd=0;\n"
	"var frames=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"function fx(g){return parseFloat(g.getAttribute('data-x'));}\n"
	"function fw(g){return parseFloat(g.getAttribute('data-w'));}\n"
	"function fd(g){return parseInt(g.getAttribute('data-d'),10);}\n"
	"function fname(g){return g.querySelector('text').getAttribute('data-n');}\n"
	"function fit(g,w){var t=g.querySelector('text'),n=fname(g),c=Math.floor((w-6)/7);\n"
	" t.textContent=c<3?'':(n.length<=c?n:n.substring(0,c-2)+'..');}\n"
	"function layout(){frames.forEach(function(g){\n"
	" var x=fx(g),w=fw(g),r=g.querySelector('rect'),t=g.querySelector('text');\n"
	" var vis=x+w>zx+1e-12&&x<zx+zw-1e-12;\n"
	" if(fd(g)<zd){vis=x<=zx+1e-12&&x+w>=zx+zw-1e-12;}\n"
	" g.style.display=vis?'':'none'; if(!vis)return;\n"
	" var a=Math.max(x,zx),b=Math.min(x+w,zx+zw),px=(a-zx)/zw*W,pw=(b-a)/zw*W;\n"
	" r.setAttribute('x',10+px);r.setAttribute('width',pw);t.setAttribute('x',13+px);\n"
	" g.style.opacity=fd(g)<zd?0.5:1; fit(g,pw);});\n"
	" document.getElementById('reset').style.display=zw<1?'':'none';}\n"
	"function zoom(g){zx=fx(g);zw=fw(g);zd=fd(g);layout();}\n"
	"function reset(){zx=0;zw=1;zd=0;layout();}\n"
	"function search(re){var m=0,hit=[];if(re){try{re=new RegExp(re);}catch(e){re=null;}}\n"
	" frames.forEach(function(g){var r=g.querySelector('rect');\n"
	"  if(!r.hasAttribute('data-c'))r.setAttribute('data-c',r.getAttribute('fill'));\n"
	"  var on=re&&re.test(fname(g));r.setAttribute('fill',on?'rgb(230,0,230)':r.getAttribute('data-c'));\n"
	"  if(on)hit.push([fx(g),fx(g)+fw(g)]);});\n"
	" hit.sort(function(a,b){return a[0]-b[0];});var end=-1;\n"
	" hit.forEach(function(h){if(h[0]>=end){m+=h[1]-h[0];end=h[1];}else if(h[1]>end){m+=h[1]-end;end=h[1];}});\n"
	" document.getElementById('matched').textContent=re?'Matched: '+(100*m).toFixed(2)+'%':'';}\n"
	"frames.forEach(function(g){var t=g.querySelector('text');t.setAttribute('data-n',t.textContent);\n"
	" g.addEventListener('click',function(){zoom(g);});\n"
	" g.addEventListener('mouseover',function(){document.getElementById('details').textContent=\n"
	"  g.querySelector('title').textContent;});});\n"
	"document.getElementById('reset').addEventListener('click',reset);\n"
	"document.getElementById('search').addEventListener('click',function(){\n"
	" search(window.prompt('Search for (regular expression):',''));});\n"
	"(function(){var self={},best='',bv=-1;frames.forEach(function(g){\n"
	"  var n=fname(g);if(fd(g)>1)self[n]=(self[n]||0)+parseFloat(g.getAttribute('data-s'));});\n"
	" for(var n in self){if(self[n]>bv){bv=self[n];best=n;}}\n"
	" document.getElementById('hottest').textContent=best?'hottest: '+best+' ('+(100*bv).toFixed(2)+'%)':'';\n"
	" layout();})();\n"
	"(function(){var h=decodeURIComponent((window.location&&window.location.hash||'').substring(1));\n"
	" h.split('&').forEach(function(kv){var i=kv.indexOf('='),k=kv.substring(0,i),v=kv.substring(i+1);\n"
	"  if(k=='s')search(v);\n"
	"  if(k=='z'){for(var j=0;j<frames.length;j++)if(fname(frames[j])==v){zoom(frames[j]);break;}}});})();\n";

int ex_write_svg(const struct ex_profile *p, uint32_t ev, const char *title, FILE *fp)
{
	GHashTable *h = fold(p, ev);
	GPtrArray *keys = sorted_keys(h);
	struct node *root = node_new("all", 3);
	unsigned depth, height;

	for (guint i = 0; i < keys->len; i++)
		node_add(root, keys->pdata[i], *(uint64_t *)g_hash_table_lookup(h, keys->pdata[i]));
	depth = node_depth(root);
	height = FG_TOP + FG_BOTTOM + depth * FG_ROW;
	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%u\" viewBox=\"0 0 %.0f %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
		".b{cursor:pointer;fill:#00c}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\" style=\"font-size:16px\">",
		FG_WIDTH + 20, height, FG_WIDTH + 20, height, (FG_WIDTH + 20) / 2);
	xml_text(fp, title);
	fprintf(fp, "</text>\n<text id=\"reset\" class=\"b\" x=\"10\" y=\"20\" "
		"style=\"display:none\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"b\" x=\"%.0f\" y=\"20\">Search</text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%u\"></text>\n"
		"<text id=\"details\" x=\"10\" y=\"%u\"></text>\n"
		"<text id=\"hottest\" x=\"%.0f\" y=\"34\" text-anchor=\"end\"></text>\n",
		FG_WIDTH - 40, FG_WIDTH - 150, height - 6, height - 6, FG_WIDTH + 10);
	if (root->value)
		emit(fp, root, 0, 0, height, root->value);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		fg_script);
	node_free(root);
	g_ptr_array_free(keys, TRUE);
	g_hash_table_destroy(h);
	return ferror(fp) ? -EIO : 0;
}
