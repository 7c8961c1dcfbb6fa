#pragma once
#include <stdint.h>
#include <libyuv/basic_types.h>
#include <libyuv/convert_from_argb.h>
#include <libyuv/convert_argb.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale_argb.h>
#include <libyuv/version.h>
