#pragma once
#include <cairo.h>
#include <pixman.h>
