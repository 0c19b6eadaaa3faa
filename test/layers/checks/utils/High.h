// Layer 2 of the fixture.
#pragma once
#include "Low.h"
