#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_fit.h>

// GSL aborts the process on errors by default; a library must report instead.
static inline void cgsl_disable_abort(void) { gsl_set_error_handler_off(); }

// GSL's generator types are mutable globals to Swift; hand them out by function.
static inline const gsl_rng_type *cgsl_rng_mt19937(void) { return gsl_rng_mt19937; }
