# Registers each doctest case of the test binary as a CTest test with its labels, after each build
# of the binary (CMakeLists.txt runs this script as a POST_BUILD step; CTest reads CTEST_FILE).
#
# A case's labels are the doctest suites it is in, among LABELS (`TEST_CASE("..." *
# doctest::test_suite("long"))`): the binary is asked once for every case and once for the cases
# of each label, not once per case. Every test gets SKIP_RETURN_CODE 77 (tests/shared_data.h).
#
# Inputs (-D): TEST_EXECUTABLE, CTEST_FILE, LABELS (comma-separated), WORKING_DIR.
cmake_policy(VERSION 3.25)

function(list_cases out)
  execute_process(COMMAND "${TEST_EXECUTABLE}" --list-test-cases ${ARGN}
                  OUTPUT_VARIABLE text RESULT_VARIABLE status WORKING_DIRECTORY "${WORKING_DIR}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${TEST_EXECUTABLE} --list-test-cases ${ARGN} failed (${status}):\n${text}")
  endif()
  # One case a line, between doctest's own "[doctest] ..." and "=====" lines. A ';' in a name
  # would split it here (and in CTest), so names never hold one (tests/main.cpp).
  string(REPLACE "\n" ";" lines "${text}")
  set(cases "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "^\\[doctest\\] " OR line MATCHES "^=+$")
      continue()
    endif()
    list(APPEND cases "${line}")
  endforeach()
  set(${out} "${cases}" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" LABELS "${LABELS}")
list_cases(all)
foreach(label IN LISTS LABELS)
  list_cases(in_${label} "--test-suite=${label}")
endforeach()

set(script "")
foreach(case IN LISTS all)
  set(labels "")
  foreach(label IN LISTS LABELS)
    if(case IN_LIST in_${label})
      list(APPEND labels "${label}")
    endif()
  endforeach()
  # doctest splits a --test-case filter at commas: escape them.
  string(REPLACE "," "\\," filter "${case}")
  string(APPEND script "add_test([==[${case}]==] \"${TEST_EXECUTABLE}\" [==[--test-case=${filter}]==])\n")
  string(APPEND script "set_tests_properties([==[${case}]==] PROPERTIES SKIP_RETURN_CODE 77 "
                       "WORKING_DIRECTORY \"${WORKING_DIR}\" LABELS \"${labels}\")\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
