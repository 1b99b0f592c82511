#include "config.h"
#include "testutil.h"
#include <perfring/perfring.h>
START_TEST(test_placeholder) { ck_assert_int_eq(perfring_version_major(), PERFRING_VERSION_MAJOR); }
END_TEST
int main(void) { Suite *s = suite_create("record"); TCase *tc = tcase_create("x"); tcase_add_test(tc, test_placeholder); suite_add_tcase(s, tc); return test_run_suite(s); }
