# Installs the ember build into WORK/prefix, then configures, builds and runs package_consumer against
# it through find_package(ember), with one more source that includes every installed header on its own
# (each must compile by itself, and none may reach a header that was not installed). Fails on the first
# step that fails.
file(REMOVE_RECURSE ${WORK})
function(run_step)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGV}")
  endif()
endfunction()
run_step(${CMAKE_COMMAND} --install ${EMBER_BUILD} --prefix ${WORK}/prefix)
file(GLOB_RECURSE installed_headers RELATIVE ${WORK}/prefix/include/ember ${WORK}/prefix/include/ember/*.h)
list(LENGTH installed_headers header_count)
if(header_count LESS 20)
  message(FATAL_ERROR "only ${header_count} headers were installed")
endif()
set(header_sources "")
foreach(header IN LISTS installed_headers)
  string(MAKE_C_IDENTIFIER ${header} name)
  file(WRITE ${WORK}/headers/${name}.cpp "#include <${header}>\n")
  list(APPEND header_sources ${WORK}/headers/${name}.cpp)
endforeach()
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
         "-DEVERY_HEADER_SOURCES=${header_sources}")
run_step(${CMAKE_COMMAND} --build ${WORK}/build)
run_step(${WORK}/build/consumer)
