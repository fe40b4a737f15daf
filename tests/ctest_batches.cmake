# ctest includes this before it runs anything. It lists ember-tests' GoogleTest cases and registers them as
# batches: up to EMBER_TESTS_PER_BATCH tests of one suite per process. Loading LibTorch and the CUDA
# libraries costs each process about a second, so one process per test spent more time starting than
# testing (1,098 skipped CUDA tests alone took 28 minutes of CI). Listing happens here, not at build
# time, so that building never starts a device.
#
# Set by the generated file that includes this one: EMBER_TESTS_EXE, EMBER_TESTS_LIST (where the
# registrations are written), EMBER_TESTS_PER_BATCH, EMBER_TESTS_ENVIRONMENT, EMBER_TESTS_TIMEOUT, and
# EMBER_TESTS_RUN_AFTER: "Later=Earlier" pairs of suites, where Later reads what Earlier's batches wrote.
if(NOT EXISTS "${EMBER_TESTS_EXE}")
  add_test(ember-tests-not-built "${EMBER_TESTS_EXE}")
  return()
endif()

# Appends the registration of one batch (its tests' full names, joined by ':') to `registrations`.
function(ember_register_batch name filter)
  set(registrations "${registrations}add_test([==[${name}]==] [==[${EMBER_TESTS_EXE}]==] [==[--gtest_filter=${filter}]==])\n")
  set(registrations "${registrations}set_tests_properties([==[${name}]==] PROPERTIES ENVIRONMENT [==[${EMBER_TESTS_ENVIRONMENT}]==] TIMEOUT ${EMBER_TESTS_TIMEOUT})\n")
  set(registrations "${registrations}" PARENT_SCOPE)
endfunction()

# Registers one suite's tests, split into as few batches as the batch size allows, named "Suite" or
# "Suite (k of n)".
function(ember_register_suite suite tests)
  list(LENGTH tests count)
  if(count EQUAL 0)
    return()
  endif()
  math(EXPR batches "(${count} + ${EMBER_TESTS_PER_BATCH} - 1) / ${EMBER_TESTS_PER_BATCH}")
  foreach(k RANGE 1 ${batches})
    math(EXPR first "(${k} - 1) * ${EMBER_TESTS_PER_BATCH}")
    list(SUBLIST tests ${first} ${EMBER_TESTS_PER_BATCH} batch)
    list(TRANSFORM batch PREPEND "${suite}.")
    list(JOIN batch ":" filter)
    if(batches EQUAL 1)
      set(name "${suite}")
    else()
      set(name "${suite} (${k} of ${batches})")
    endif()
    ember_register_batch("${name}" "${filter}")
    list(APPEND "batches_of_${suite}" "${name}")
  endforeach()
  set(registrations "${registrations}" PARENT_SCOPE)
  set("batches_of_${suite}" "${batches_of_${suite}}" PARENT_SCOPE)
endfunction()

if(NOT EXISTS "${EMBER_TESTS_LIST}" OR "${EMBER_TESTS_EXE}" IS_NEWER_THAN "${EMBER_TESTS_LIST}")
  execute_process(COMMAND "${EMBER_TESTS_EXE}" --gtest_list_tests
    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${EMBER_TESTS_EXE} --gtest_list_tests failed (${status}):\n${listing}${errors}")
  endif()
  if(listing MATCHES "[][;]")
    message(FATAL_ERROR "a test or parameter name holds ';', '[' or ']', which CMake lists cannot carry")
  endif()
  # GoogleTest prints each suite as "Suite." and its tests indented below it, with "  # GetParam() = ..."
  # comments after parameterized names.
  string(REPLACE "\n" ";" lines "${listing}")
  set(registrations "")
  set(suite "")
  set(tests "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ ]+)\\.( |$)")
      ember_register_suite("${suite}" "${tests}")
      set(suite "${CMAKE_MATCH_1}")
      set(tests "")
    elseif(line MATCHES "^  ([^ ]+)")
      set(test "${CMAKE_MATCH_1}")
      if(NOT test MATCHES "^DISABLED_" AND NOT suite MATCHES "^(.*/)?DISABLED_")
        list(APPEND tests "${test}")
      endif()
    endif()
  endforeach()
  ember_register_suite("${suite}" "${tests}")
  foreach(pair IN LISTS EMBER_TESTS_RUN_AFTER)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 later)
    list(GET pair 1 earlier)
    foreach(batch IN LISTS "batches_of_${later}")
      string(APPEND registrations
             "set_tests_properties([==[${batch}]==] PROPERTIES DEPENDS [==[${batches_of_${earlier}}]==])\n")
    endforeach()
  endforeach()
  file(WRITE "${EMBER_TESTS_LIST}" "${registrations}")
endif()
include("${EMBER_TESTS_LIST}")
