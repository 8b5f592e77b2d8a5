/* status.c — names and texts of rf_status, expanded from RF_STATUS_LIST. */
#include "roofline/status.h"

const char *rf_status_name(rf_status status)
{
    switch (status) {
#define RF__CASE(name, text)                                                                       \
    case RF_##name: return #name;
        RF_STATUS_LIST(RF__CASE)
#undef RF__CASE
    default: return "UNKNOWN";
    }
}

const char *rf_status_str(rf_status status)
{
    switch (status) {
#define RF__CASE(name, text)                                                                       \
    case RF_##name: return text;
        RF_STATUS_LIST(RF__CASE)
#undef RF__CASE
    default: return "unknown status";
    }
}

int rf_status_is_input_error(rf_status status)
{
    return status == RF_FORMAT || status == RF_UNSUPPORTED || status == RF_RANGE ||
           status == RF_USAGE || status == RF_IO;
}
