#pragma once
#include <proj.h>
