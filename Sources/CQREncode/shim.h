#ifndef CQREncode_SHIM_H
#define CQREncode_SHIM_H
#include <qrencode.h>
#endif
