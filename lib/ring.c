#include "config.h"
#include "internal.h"
