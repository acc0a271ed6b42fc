# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` lays out (GNUInstallDirs; the man pages and
# completions are installed by man/CMakeLists.txt):
#   bin/       scrollcase, scrollcase-conform, scrollcase-adapter
#   lib*/      libscrollcase.so.<major> (+ .so.<version>, .so), libscrollcase.a,
#              pkgconfig/scrollcase.pc, cmake/scrollcase/ (find_package)
#   include/   scrollcase/*.h, scrollcase/version.h, scrollcase/scrollcase.h
#   share/scrollcase/golden/   the conformance corpus (the runner's default)
#   share/doc/scrollcase/      LICENSE, NOTICE, README.md, the format, errors, CLI, API
include(CMakePackageConfigHelpers)

# Installed programs find the library through the system's search path when
# it goes to one of the system's directories, else through $ORIGIN.
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" _sc_libdir_is_system)
if(_sc_libdir_is_system EQUAL -1)
  file(RELATIVE_PATH _sc_rel_libdir ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(scrollcase-cli scrollcase-conform scrollcase-adapter PROPERTIES
    INSTALL_RPATH "$ORIGIN/${_sc_rel_libdir}")
endif()

install(TARGETS scrollcase-cli scrollcase-conform scrollcase-adapter
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT programs)
install(TARGETS scrollcase_shared EXPORT scrollcaseTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
                NAMELINK_COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS scrollcase
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(FILES ${SC_ALL_PUBLIC_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scrollcase COMPONENT development)

# pkg-config: the shared library by default; --static adds what the static
# one needs.  The paths are relative to the file itself (${pcfiledir}), so
# `cmake --install build --prefix /any/where` gives a file that works there;
# only a libdir or includedir given as an absolute path stays absolute.
set(SC_PC_PREFIX "\${pcfiledir}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(SC_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _sc_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" _sc_pc_up "${_sc_pc_up}")
  string(APPEND SC_PC_PREFIX "/${_sc_pc_up}")
  set(SC_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(SC_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(SC_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/scrollcase.pc.in
               ${CMAKE_BINARY_DIR}/scrollcase.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/scrollcase.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

# find_package(scrollcase) -> scrollcase::scrollcase (the shared library).
set(_sc_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/scrollcase)
install(EXPORT scrollcaseTargets NAMESPACE scrollcase:: DESTINATION ${_sc_cmake_dir}
        COMPONENT development)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/scrollcaseConfig.cmake.in
  ${CMAKE_BINARY_DIR}/scrollcaseConfig.cmake INSTALL_DESTINATION ${_sc_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/scrollcaseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/scrollcaseConfig.cmake
              ${CMAKE_BINARY_DIR}/scrollcaseConfigVersion.cmake
        DESTINATION ${_sc_cmake_dir} COMPONENT development)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/golden/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/scrollcase/golden COMPONENT corpus)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE
              ${PROJECT_SOURCE_DIR}/README.md
              ${PROJECT_SOURCE_DIR}/docs/format-v3.md ${PROJECT_SOURCE_DIR}/docs/errors.md
              ${PROJECT_SOURCE_DIR}/docs/cli.md ${PROJECT_SOURCE_DIR}/docs/api.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)
