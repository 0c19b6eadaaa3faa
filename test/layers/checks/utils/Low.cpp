// Layer 1 includes layer 2: check-layers.py must report this line.
#include "Low.h"
#include "High.h"
