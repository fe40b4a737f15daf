# Which test sources include some headers, directly or through the headers of tests/, judged from their
# #include lines. It only sorts the sources by precompiled header, so a wrong guess costs build time,
# never correctness.

# Sets `out` to those of the given sources whose #include lines match the regex `pattern`, or name a
# header of tests/ that does (a header that includes such a header counts too).
function(ember_sources_including out pattern)
  file(GLOB_RECURSE headers ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  # Repeat until no header joins: a header joins when it includes the pattern or a header that joined.
  set(joined TRUE)
  while(joined)
    set(joined FALSE)
    foreach(header IN LISTS headers)
      file(STRINGS ${header} includes REGEX "^#include")
      if(includes MATCHES "${pattern}")
        list(REMOVE_ITEM headers ${header})
        get_filename_component(name ${header} NAME)
        string(REPLACE "." "\\." name "${name}")
        string(APPEND pattern "|[/\"]${name}\"")
        set(joined TRUE)
      endif()
    endforeach()
  endwhile()
  set(matching "")
  foreach(source IN LISTS ARGN)
    file(STRINGS ${source} includes REGEX "^#include")
    if(includes MATCHES "${pattern}")
      list(APPEND matching ${source})
    endif()
  endforeach()
  set(${out} ${matching} PARENT_SCOPE)
endfunction()
