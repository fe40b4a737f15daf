# Installs the ember build into WORK/prefix, then configures, builds and runs package_consumer against
# it through find_package(ember). Fails on the first step that fails.
file(REMOVE_RECURSE ${WORK})
function(run_step)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGV}")
  endif()
endfunction()
run_step(${CMAKE_COMMAND} --install ${EMBER_BUILD} --prefix ${WORK}/prefix)
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run_step(${CMAKE_COMMAND} --build ${WORK}/build)
run_step(${WORK}/build/consumer)
