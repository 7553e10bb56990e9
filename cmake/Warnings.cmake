# One place for warning flags, applied per target with cp_warnings(target).
function(cp_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C>:/W4 /wd4100 /wd4996>)
  else()
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wstrict-prototypes
        -Wno-unused-parameter -Wformat=2 -Werror=implicit-function-declaration
        -Werror=incompatible-pointer-types>)
  endif()
endfunction()
