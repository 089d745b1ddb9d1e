####
## Spark's Windows setup: Wails' NSIS project, made Spark's own.
##
## `wails build -nsis` (run by build/package.sh) writes wails_tools.nsh beside
## this file on every build (so nothing is changed there) and runs makensis
## on this file. build/package.sh first writes spark_build.nsh beside it with
## the build's values; any of them can be given on makensis' command line
## instead (-DNAME=VALUE wins), which build/test-setup-exe.sh does to make an
## older setup to upgrade from:
##   INFO_PRODUCTVERSION  the build's own version, the one `spark --version`
##                        prints (7d1e1a6, 1.2.3, 1.2.3-4-gabcdef0): the
##                        uninstall entry's version and the setup's properties
##   SPARK_FILEVERSION    the same as four numbers, which Windows needs for a
##                        file's version (1.2.3.0, or 0.0.0.N N commits in)
##   SPARK_CMD_DIR        the folder holding spark.exe and spark-engine.exe
##   ARG_WAILS_AMD64_BINARY  the window app (Wails passes it)
##   SPARK_OUTFILE        where the setup goes (default: build/bin)
##
## What it installs, in C:\Program Files\Spark family\Spark:
##   Spark.exe               the window, with the Start-menu and desktop shortcuts
##   bin\spark.exe           the `spark` command
##   bin\spark-engine.exe    the engine alone, for a family server or a service
## Windows ignores case in names, so the command's spark.exe cannot sit beside
## the window's Spark.exe: the commands live in bin\, which the setup adds to
## the PATH of every user (and the uninstaller takes out again).
##
## The setup is a 64-bit program (Target amd64-unicode): Spark itself runs on
## 64-bit Windows only, and a 64-bit setup also runs where no 32-bit code can
## (the Wine in CI, see build/test-setup-exe.sh).
####
Target amd64-unicode

!include "spark_build.nsh"
!include "wails_tools.nsh"
!include "LogicLib.nsh"
!include "WinMessages.nsh"
!include "WordFunc.nsh"

!ifndef SPARK_FILEVERSION
    !error "SPARK_FILEVERSION is not defined: build/package.sh writes it into spark_build.nsh"
!endif
!ifndef SPARK_CMD_DIR
    !error "SPARK_CMD_DIR is not defined: build/package.sh writes it into spark_build.nsh"
!endif

# The setup's own properties. The version numbers must be four numbers; the
# version texts are the build's own.
VIProductVersion "${SPARK_FILEVERSION}"
VIFileVersion    "${SPARK_FILEVERSION}"

VIAddVersionKey "CompanyName"     "${INFO_COMPANYNAME}"
VIAddVersionKey "FileDescription" "${INFO_PRODUCTNAME} Setup"
VIAddVersionKey "ProductVersion"  "${INFO_PRODUCTVERSION}"
VIAddVersionKey "FileVersion"     "${INFO_PRODUCTVERSION}"
VIAddVersionKey "LegalCopyright"  "${INFO_COPYRIGHT}"
VIAddVersionKey "ProductName"     "${INFO_PRODUCTNAME}"

# Enable HiDPI support. https://nsis.sourceforge.io/Reference/ManifestDPIAware
ManifestDPIAware true

!include "MUI.nsh"

!define MUI_ICON "..\icon.ico"
!define MUI_UNICON "..\icon.ico"
!define MUI_FINISHPAGE_NOAUTOCLOSE
!define MUI_ABORTWARNING

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

## The windows workflow (.github/workflows/ci.yml) signs the finished setup
## with signtool when the repository has a certificate; the programs inside
## it are not signed yet.

Name "${INFO_PRODUCTNAME}"
!ifdef SPARK_OUTFILE
    OutFile "${SPARK_OUTFILE}"
!else
    OutFile "..\..\bin\${INFO_PROJECTNAME}-${ARCH}-installer.exe"
!endif
InstallDir "$PROGRAMFILES64\${INFO_COMPANYNAME}\${INFO_PRODUCTNAME}"
ShowInstDetails show

!define SPARK_ENV_KEY 'SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
!define WEBVIEW2_CLIENT '{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}'

# WebView2, which draws Spark's window, through Microsoft's small bootstrapper
# that downloads it. Without internet the download fails: the setup goes on,
# says so in its details and (when not silent) in a message, and Spark's
# window asks for WebView2 again when it starts.
!macro spark.webview2runtime
    SetRegView 64
    ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_CLIENT}" "pv"
    ${If} $0 == ""
        ReadRegStr $0 HKCU "Software\Microsoft\EdgeUpdate\Clients\${WEBVIEW2_CLIENT}" "pv"
    ${EndIf}
    ${If} $0 == ""
    ${OrIf} $0 == "0.0.0.0"
        SetDetailsPrint both
        DetailPrint "Installing Microsoft WebView2, which shows Spark's window"
        SetDetailsPrint listonly
        InitPluginsDir
        CreateDirectory "$PLUGINSDIR\webview2bootstrapper"
        SetOutPath "$PLUGINSDIR\webview2bootstrapper"
        File "tmp\MicrosoftEdgeWebview2Setup.exe"
        ClearErrors
        ExecWait '"$PLUGINSDIR\webview2bootstrapper\MicrosoftEdgeWebview2Setup.exe" /silent /install' $1
        ${If} ${Errors}
        ${OrIf} $1 != 0
            SetDetailsPrint both
            DetailPrint "Spark needs Microsoft WebView2, which could not be downloaded now."
            SetDetailsPrint listonly
            MessageBox MB_OK|MB_ICONINFORMATION "Spark is installed, but it needs one more piece from Microsoft, called WebView2, to show its window. It could not be downloaded now.$\r$\n$\r$\nConnect to the internet, then start Spark: it will offer to get WebView2." /SD IDOK
        ${EndIf}
        SetDetailsPrint both
    ${EndIf}
!macroend

Function .onInit
    !insertmacro wails.checkArchitecture
FunctionEnd

Section
    !insertmacro wails.setShellContext

    !insertmacro spark.webview2runtime

    SetOutPath $INSTDIR
    !insertmacro wails.files

    SetOutPath "$INSTDIR\bin"
    File "${SPARK_CMD_DIR}\spark.exe"
    File "${SPARK_CMD_DIR}\spark-engine.exe"
    SetOutPath $INSTDIR

    CreateShortcut "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"
    CreateShortCut "$DESKTOP\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"

    !insertmacro wails.associateFiles
    !insertmacro wails.associateCustomProtocols

    # bin\ on the PATH of every user. NSIS strings hold 1023 characters: a
    # longer PATH is never written back (it would be cut); the setup then
    # says where the commands are instead.
    SetRegView 64
    ReadRegStr $0 HKLM "${SPARK_ENV_KEY}" "Path"
    StrLen $1 $0
    ${WordFind} "$0" "$INSTDIR\bin" "E+1{" $2
    ${If} ${Errors}
        ${If} $1 < 900
            ${If} $0 == ""
                WriteRegExpandStr HKLM "${SPARK_ENV_KEY}" "Path" "$INSTDIR\bin"
            ${Else}
                WriteRegExpandStr HKLM "${SPARK_ENV_KEY}" "Path" "$0;$INSTDIR\bin"
            ${EndIf}
            SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
        ${Else}
            DetailPrint "The PATH is too long to add to: the spark and spark-engine commands are in $INSTDIR\bin"
        ${EndIf}
    ${EndIf}

    !insertmacro wails.writeUninstaller
SectionEnd

Section "uninstall"
    !insertmacro wails.setShellContext

    RMDir /r "$AppData\${PRODUCT_EXECUTABLE}" # Remove the WebView2 DataPath

    # Only the program: Spark's data, %LocalAppData%\Spark, stays.
    RMDir /r $INSTDIR

    Delete "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk"
    Delete "$DESKTOP\${INFO_PRODUCTNAME}.lnk"

    !insertmacro wails.unassociateFiles
    !insertmacro wails.unassociateCustomProtocols

    SetRegView 64
    ReadRegStr $0 HKLM "${SPARK_ENV_KEY}" "Path"
    StrLen $1 $0
    ${If} $1 < 1000
        ${WordReplace} "$0" ";$INSTDIR\bin" "" "+" $2
        ${WordReplace} "$2" "$INSTDIR\bin" "" "+" $2
        ${If} $2 != $0
            WriteRegExpandStr HKLM "${SPARK_ENV_KEY}" "Path" "$2"
            SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
        ${EndIf}
    ${EndIf}

    !insertmacro wails.deleteUninstaller
SectionEnd
