# Plain compiler and linker flags for LibTorch, for tools and tests that compile
# LibTorch programs outside CMake (the end-to-end tests, `libtorch-tidy verify`).
#   LIBTORCH_TIDY_TORCH_CXXFLAGS  -isystem dirs, -std=c++<CMAKE_CXX_STANDARD>, TORCH_CXX_FLAGS
#   LIBTORCH_TIDY_TORCH_LDFLAGS   -L, -rpath and -l flags
#   LIBTORCH_TIDY_TORCH_LIBDIR    the directory of libtorch.so
set(LIBTORCH_TIDY_TORCH_CXXFLAGS "")
set(LIBTORCH_TIDY_TORCH_LDFLAGS "")
set(LIBTORCH_TIDY_TORCH_LIBDIR "")
if(Torch_FOUND)
  foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
    if(dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES OR dir STREQUAL "/usr/include")
      continue() # -isystem /usr/include breaks #include_next in libstdc++
    endif()
    string(APPEND LIBTORCH_TIDY_TORCH_CXXFLAGS " -isystem ${dir}")
  endforeach()
  string(APPEND LIBTORCH_TIDY_TORCH_CXXFLAGS " -std=c++${CMAKE_CXX_STANDARD} ${TORCH_CXX_FLAGS}")
  get_target_property(_torch_configs torch IMPORTED_CONFIGURATIONS)
  set(_torch_lib "")
  foreach(cfg IN LISTS _torch_configs)
    get_target_property(_torch_lib torch IMPORTED_LOCATION_${cfg})
    if(_torch_lib)
      break()
    endif()
  endforeach()
  if(NOT _torch_lib)
    get_target_property(_torch_lib torch IMPORTED_LOCATION)
  endif()
  get_filename_component(LIBTORCH_TIDY_TORCH_LIBDIR "${_torch_lib}" DIRECTORY)
  set(LIBTORCH_TIDY_TORCH_LDFLAGS
      "-L${LIBTORCH_TIDY_TORCH_LIBDIR} -Wl,-rpath,${LIBTORCH_TIDY_TORCH_LIBDIR} -Wl,--no-as-needed -ltorch -ltorch_cpu -lc10")
  if(TARGET torch_cuda OR EXISTS ${LIBTORCH_TIDY_TORCH_LIBDIR}/libtorch_cuda.so)
    string(APPEND LIBTORCH_TIDY_TORCH_LDFLAGS " -ltorch_cuda -lc10_cuda")
  endif()
  string(APPEND LIBTORCH_TIDY_TORCH_LDFLAGS " -Wl,--as-needed -lpthread")
  string(STRIP "${LIBTORCH_TIDY_TORCH_CXXFLAGS}" LIBTORCH_TIDY_TORCH_CXXFLAGS)
endif()
