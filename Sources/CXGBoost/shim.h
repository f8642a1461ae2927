// XGBoost's C API, from Debian's libxgboost-dev (scripts/ensure-deps.sh installs it).
#include <xgboost/c_api.h>
