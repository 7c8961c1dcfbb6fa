#pragma once
#include <zip.h>
