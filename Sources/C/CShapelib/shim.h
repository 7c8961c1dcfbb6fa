#pragma once
#include <shapefil.h>
