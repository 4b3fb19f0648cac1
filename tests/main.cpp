// The single doctest binary: every *_test.cpp of every layer and the cross-layer tests here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
