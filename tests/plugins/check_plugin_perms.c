/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin loader's rules for what it opens: it refuses plugin files and
 * directories that others can write or that another user owns, checks a
 * plugin's descriptor before running any of its functions (a plugin with a
 * NULL function and an aborting init: modules/nullfn.c), warns about a
 * relative PERFRING_PLUGIN_PATH entry and never reads an empty entry as the
 * current directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <perfring/perfring.h>
#include <perfring/registry.h>

#include "testutil.h"

static char tmpdir[256];

/* ---- plugin loading ---------------------------------------------------- */

static char logbuf[4096];

static void log_fn(enum perfring_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level <= PERFRING_LOG_WARN)
		snprintf(logbuf + strlen(logbuf), sizeof(logbuf) - strlen(logbuf), "%s\n", msg);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

static int try_load(const char *what, int is_dir, struct perfring_diag *d)
{
	struct perfring_registry *reg;
	int ret;

	memset(d, 0, sizeof(*d));
	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ret = is_dir ? perfring_registry_load_dir(reg, what, d)
		     : perfring_registry_load_file(reg, what, d);
	if (ret >= 0)
		ret = (int)perfring_registry_count(reg);
	perfring_registry_free(reg);
	return ret;
}

START_TEST(test_plugin_perms)
{
	char dir[512], file[600], cwd[4096];
	struct perfring_diag d;
	struct perfring_registry *reg;

	snprintf(dir, sizeof(dir), "%s/plugdir", tmpdir);
	snprintf(file, sizeof(file), "%s/comm.so", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);	/* whatever the umask */
	ck_assert_int_eq(copy_file(BUILD_COMM_SO, file), 0);
	ck_assert_int_eq(chmod(file, 0644), 0);

	ck_assert_int_eq(try_load(dir, 1, &d), 1);
	ck_assert_int_eq(try_load(file, 0, &d), 1);

	/* a world-writable directory: never scanned, nor a file in it */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(try_load(dir, 1, &d), -EPERM);
	ck_assert_str_eq(d.file, dir);
	ck_assert_ptr_nonnull(strstr(d.msg, "writable by every user"));
	ck_assert_int_eq(try_load(file, 0, &d), -EPERM);
	ck_assert_str_eq(d.file, dir);
	/* sticky (like /tmp): a named file may be loaded, the dir not scanned */
	ck_assert_int_eq(chmod(dir, 01777), 0);
	ck_assert_int_eq(try_load(file, 0, &d), 1);
	ck_assert_int_eq(try_load(dir, 1, &d), -EPERM);
	ck_assert_int_eq(chmod(dir, 0755), 0);

	/* a world-writable plugin file */
	ck_assert_int_eq(chmod(file, 0666), 0);
	ck_assert_int_eq(try_load(file, 0, &d), -EPERM);
	ck_assert_str_eq(d.file, file);
	ck_assert_ptr_nonnull(strstr(d.msg, "refusing plugin: writable by every user (mode 0666)"));
	ck_assert_int_eq(try_load(dir, 1, &d), -EPERM);
	ck_assert_str_eq(d.file, file);
	ck_assert_int_eq(chmod(file, 0644), 0);

	/* owned by another (non-root) user: only root can arrange that here */
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(file, 65534, 65534), 0);
		ck_assert_int_eq(try_load(file, 0, &d), -EPERM);
		ck_assert_ptr_nonnull(strstr(d.msg, "owned by another user (uid 65534)"));
		ck_assert_int_eq(chown(file, 0, 0), 0);
		ck_assert_int_eq(chown(dir, 65534, 65534), 0);
		ck_assert_int_eq(try_load(dir, 1, &d), -EPERM);
		ck_assert_str_eq(d.file, dir);
		ck_assert_int_eq(chown(dir, 0, 0), 0);
		ck_assert_int_eq(try_load(dir, 1, &d), 1);
	} else {
		printf("plugin owned by another user: not tested (needs root to chown)\n");
	}

	/* the descriptor is checked before any plugin function runs: its
	 * init aborts, its record_ops has no format_json */
	ck_assert_int_eq(try_load(NULLFN_SO, 0, &d), -EPROTO);
	ck_assert_msg(strstr(d.msg, "invalid plugin descriptor: no format_json function"),
		      "%s", d.msg);

	/* a relative PERFRING_PLUGIN_PATH entry works but is warned about;
	 * an empty entry never means the current directory */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpdir), 0);
	logbuf[0] = 0;
	perfring_set_log(log_fn, NULL);
	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ck_assert_int_eq(perfring_registry_load_path(reg, "plugdir", &d), 1);
	perfring_registry_free(reg);
	ck_assert_msg(strstr(logbuf, "plugin path entry 'plugdir' is relative"), "log: %s", logbuf);
	ck_assert_int_eq(chdir(dir), 0);	/* comm.so in the current directory */
	logbuf[0] = 0;
	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ck_assert_int_eq(perfring_registry_load_path(reg, ":", &d), 0);
	ck_assert_int_eq(perfring_registry_load_path(reg, "", &d), 0);
	ck_assert_uint_eq(perfring_registry_count(reg), 0);
	perfring_registry_free(reg);
	perfring_set_log(NULL, NULL);
	ck_assert_int_eq(chdir(cwd), 0);
	unlink(file);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin_perms");
	TCase *tc;
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "%s/plugin-perms.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(tmpdir, 0755);
	setenv("PERFRING_NO_DLCLOSE", "1", 0);
	tc = tcase_create("plugins");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_plugin_perms);
	suite_add_tcase(s, tc);
	ret = test_run_suite(s);
	rmdir(tmpdir);
	return ret;
}
