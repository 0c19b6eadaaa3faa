#pragma once
#define THIRDPARTY_CONFIG 1
