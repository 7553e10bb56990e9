# repro.ps1: the Windows launcher, the twin of ./repro (bash). It checks the
# build tools, configures and builds the windows-msvc preset when needed, then
# runs the native build\windows-msvc\bin\repro.exe with the same arguments and
# exits with its exit code. All behaviour lives in the native program.
#
#   .\repro.ps1 [--preset NAME] [--prebuilt] COMMAND [options]
#   .\repro.ps1 --help
#
# --prebuilt: use build\<preset> as it is (no checks, no rebuild).
# Exit codes are repro's own (see --help); 3 means the launcher could not get
# repro built, and says what is missing.
#
# Written for Windows PowerShell 5.1 and PowerShell 7. Reviewed, not run: no
# Windows machine or PowerShell was available to this project (docs/WINDOWS.md).
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version 3.0

$Root = $PSScriptRoot
$Preset = 'windows-msvc'
$PresetGiven = $false
$Prebuilt = $false
$Command = ''
# The other options that take a value (src/repro/rp_cli.c): their value is
# skipped, so that `--out DIR verify` finds the command, not DIR.
$ValueOptions = @('--only', '--skip', '--root', '--out', '--build-dir',
  '--select', '--gpu', '--lock-clocks', '--profile-set')
for ($i = 0; $i -lt $args.Count; $i++) {
  $a = [string]$args[$i]
  if ($a -eq '--preset' -and $i + 1 -lt $args.Count) {
    $Preset = [string]$args[$i + 1]
    $PresetGiven = $true
    $i++
  } elseif ($ValueOptions -contains $a) {
    $i++
  } elseif ($a.StartsWith('--preset=')) {
    $Preset = $a.Substring(9)
    $PresetGiven = $true
  } elseif ($a -eq '--prebuilt') {
    $Prebuilt = $true
  } elseif (-not $a.StartsWith('-') -and $Command -eq '') {
    $Command = $a
  }
}

function Say([string]$msg) { [Console]::Error.WriteLine("repro: $msg") }

$BuildDir = Join-Path $Root "build\$Preset"
$Native = Join-Path $BuildDir 'bin\repro.exe'

# Returns the Visual Studio install that has the C++ build tools, or $null.
function Find-VisualStudio {
  $pf86 = ${env:ProgramFiles(x86)}
  if (-not $pf86) { return $null }
  $vswhere = Join-Path $pf86 'Microsoft Visual Studio\Installer\vswhere.exe'
  if (-not (Test-Path -LiteralPath $vswhere)) { return $null }
  # a line vswhere writes on stderr is an error record to PowerShell 5.1,
  # which 'Stop' would turn into the script's end, 2>$null or not
  $ErrorActionPreference = 'Continue'
  try {
    $path = & $vswhere -latest -products * -property installationPath `
      -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 2>$null
  } catch {
    return $null
  }
  if ($LASTEXITCODE -ne 0 -or -not $path) { return $null }
  return ($path | Select-Object -First 1)
}

# Loads the x64 developer environment (cl, link, the Windows SDK) into this
# session, as the "x64 Native Tools" prompt would. Not needed when cl is
# already on PATH (a developer prompt).
function Enter-DevShell([string]$vsPath) {
  if (Get-Command cl.exe -ErrorAction SilentlyContinue) { return }
  $vcvars = Join-Path $vsPath 'VC\Auxiliary\Build\vcvars64.bat'
  if (-not (Test-Path -LiteralPath $vcvars)) {
    throw "vcvars64.bat not found under $vsPath"
  }
  # cmd prints the environment after vcvars has set it; copy it over.
  $lines = & cmd.exe /d /s /c "`"$vcvars`" >nul 2>&1 && set"
  if ($LASTEXITCODE -ne 0) { throw "vcvars64.bat failed" }
  foreach ($line in $lines) {
    $eq = $line.IndexOf('=')
    if ($eq -gt 0) {
      [Environment]::SetEnvironmentVariable($line.Substring(0, $eq),
        $line.Substring($eq + 1), 'Process')
    }
  }
}

# Every check, with the exact way to fix it; the run stops after listing all.
function Test-Prerequisites {
  $missing = @()
  $vs = Find-VisualStudio
  if (-not $vs) {
    $missing += ("Visual Studio Build Tools with the C++ workload: " +
      "winget install Microsoft.VisualStudio.2022.BuildTools --override " +
      "`"--add Microsoft.VisualStudio.Workload.VCTools --includeRecommended`"")
  }
  if (-not (Get-Command cmake.exe -ErrorAction SilentlyContinue) -and
      -not ($vs -and (Test-Path -LiteralPath (Join-Path $vs `
        'Common7\IDE\CommonExtensions\Microsoft\CMake\CMake\bin\cmake.exe')))) {
    $missing += "CMake 3.25 or newer: winget install Kitware.CMake"
  }
  $nvcc = $null
  if ($env:CUDA_PATH) {
    $cand = Join-Path $env:CUDA_PATH 'bin\nvcc.exe'
    if (Test-Path -LiteralPath $cand) { $nvcc = $cand }
  }
  if (-not $nvcc) {
    $cmd = Get-Command nvcc.exe -ErrorAction SilentlyContinue
    if ($cmd) { $nvcc = $cmd.Source }
  }
  # No CUDA is not fatal: repro alone is built (CP_WITH_CUDA=OFF), as
  # ./repro does, and the launcher says so.
  $noCuda = $null
  if (-not $nvcc) {
    $noCuda = ("the CUDA Toolkit (nvcc; CUDA_PATH unset or wrong): " +
      "install it from NVIDIA's CUDA downloads page, after Visual Studio")
  }
  if (-not $env:VCPKG_ROOT -or -not (Test-Path -LiteralPath `
      (Join-Path $env:VCPKG_ROOT 'scripts\buildsystems\vcpkg.cmake'))) {
    $missing += ("vcpkg, with VCPKG_ROOT naming its folder: git clone " +
      "the microsoft/vcpkg repository to C:\vcpkg, run " +
      "C:\vcpkg\bootstrap-vcpkg.bat, then " +
      "[Environment]::SetEnvironmentVariable('VCPKG_ROOT','C:\vcpkg','User')")
  }
  return @{ Missing = $missing; VisualStudio = $vs; NoCuda = $noCuda }
}

# The commands that only read runs or print checks: where the build tools
# are missing (an auditor's machine), an existing native repro still does
# them, with a warning, instead of exit 3 (as ./repro does).
$ReadOnly = (@('verify', 'report', 'compare', 'doctor') -contains $Command) -or
  ($Command -eq '') -or (@($args | Where-Object { $_ -eq '--help' -or $_ -eq '-h' }).Count -gt 0)

# The arguments as one line that pastes back into PowerShell: a word with
# white space, quotes or PowerShell's special characters in single quotes.
function Format-Args([object[]]$words) {
  ($words | ForEach-Object {
    $w = [string]$_
    if ($w -eq '' -or $w -match '[\s''"`$;,&|(){}<>@#]') { "'" + ($w -replace "'", "''") + "'" }
    else { $w }
  }) -join ' '
}

if (-not $Prebuilt) {
  $check = Test-Prerequisites
  if ($check.Missing.Count -gt 0 -and $ReadOnly -and
      (Test-Path -LiteralPath $Native)) {
    Say 'cannot build repro; missing:'
    foreach ($m in $check.Missing) { Say "  - $m" }
    $what = if ($Command) { "$Command only reads" } else { 'that runs nothing' }
    Say "$what, so the existing $Native does it (not rebuilt"
    Say 'from the sources; --prebuilt says so up front)'
    $Prebuilt = $true
  }
}

if (-not $Prebuilt) {
  if ($check.Missing.Count -gt 0) {
    Say 'cannot build repro; missing:'
    foreach ($m in $check.Missing) { Say "  - $m" }
    Say 'install them, open a new PowerShell, and run .\repro.ps1 again'
    Say "(with a build folder made elsewhere: .\repro.ps1 --prebuilt $(Format-Args $args))"
    exit 3
  }
  $cudaFlag = @()
  if ($check.NoCuda) {
    Say "no CUDA toolkit: building repro alone (CP_WITH_CUDA=OFF);"
    Say "cuda_portfolio needs $($check.NoCuda)"
    $cudaFlag = @('-DCP_WITH_CUDA=OFF')
  }
  $reconfigure = $false
  $cache = Join-Path $BuildDir 'CMakeCache.txt'
  if (-not $check.NoCuda -and (Test-Path -LiteralPath $cache) -and
      (Select-String -LiteralPath $cache -Pattern '^CP_WITH_CUDA:BOOL=OFF$' -Quiet)) {
    # configured before the toolkit was there: the cache would keep
    # cuda_portfolio out of every later build, without a word
    Say "the CUDA toolkit is here now: configuring preset $Preset again with cuda_portfolio (CP_WITH_CUDA=ON)"
    $cudaFlag = @('-DCP_WITH_CUDA=ON')
    $reconfigure = $true
  }
  try {
    Enter-DevShell $check.VisualStudio
  } catch {
    Say "could not load the Visual Studio x64 environment: $_"
    exit 3
  }
  $logs = Join-Path $Root 'logs'
  New-Item -ItemType Directory -Force -Path $logs | Out-Null
  # -LiteralPath: a checkout under C:\src\repro[2] is a path, not a pattern
  Push-Location -LiteralPath $Root
  # cmake's lines on stderr, redirected, are error records to PowerShell
  # 5.1, which 'Stop' would make a script-ending error before its exit code
  # is read: the exit code decides here.
  $ErrorActionPreference = 'Continue'
  try {
    if ($reconfigure -or
        -not (Test-Path -LiteralPath (Join-Path $BuildDir 'build.ninja'))) {
      Say "configuring preset $Preset"
      # relative to the root (the current folder here): a redirection
      # target is a wildcard pattern to PowerShell 5.1, and the root's path
      # may hold [ or ]
      $log = "logs\.configure-$Preset.log"
      & cmake --preset $Preset @cudaFlag *> $log
      if ($LASTEXITCODE -ne 0) {
        Get-Content -LiteralPath $log | ForEach-Object { [Console]::Error.WriteLine($_) }
        Say "cmake --preset $Preset failed (log above)"
        exit 3
      }
    }
    # Ninja rebuilds only what changed; a no-op build is quick.
    $log = "logs\.build-$Preset.log"
    & cmake --build --preset $Preset *> $log
    if ($LASTEXITCODE -ne 0) {
      Get-Content -LiteralPath $log -Tail 60 |
        ForEach-Object { [Console]::Error.WriteLine($_) }
      Say "build of preset $Preset failed (last lines above; full log: $log)"
      exit 3
    }
  } finally {
    Pop-Location
    $ErrorActionPreference = 'Stop'
  }
}

if (-not (Test-Path -LiteralPath $Native)) {
  Say "native repro not found at $Native"
  Say "build it with: cmake --preset $Preset; cmake --build --preset $Preset"
  exit 3
}
# One Windows command-line word for w, as CommandLineToArgvW and the C
# runtime read it back: quoted when empty or holding white space or a
# quote; a quote escaped with a backslash, and the backslashes before a
# quote (or the closing one) doubled. Windows PowerShell 5.1 does none of
# this for a native command (an empty word is dropped, a trailing
# backslash escapes its closing quote: PowerShell issue 1995), so the line
# is built here.
function ConvertTo-NativeWord([string]$w) {
  if ($w -ne '' -and $w -notmatch '[\s"]') { return $w }
  $sb = New-Object System.Text.StringBuilder
  [void]$sb.Append([char]'"')
  $slashes = 0
  foreach ($c in $w.ToCharArray()) {
    if ($c -eq [char]'\') {
      $slashes++
      continue
    }
    if ($c -eq [char]'"') {
      [void]$sb.Append([char]'\', 2 * $slashes + 1)
    } elseif ($slashes -gt 0) {
      [void]$sb.Append([char]'\', $slashes)
    }
    [void]$sb.Append($c)
    $slashes = 0
  }
  if ($slashes -gt 0) { [void]$sb.Append([char]'\', 2 * $slashes) }
  [void]$sb.Append([char]'"')
  return $sb.ToString()
}

# The native repro reads build\<preset> (its own default is linux, the
# bash launcher's): the preset built here, unless the words name one.
$words = @('--root', $Root)
if (-not $PresetGiven) { $words += @('--preset', $Preset) }
foreach ($a in $args) { $words += [string]$a }
$psi = New-Object System.Diagnostics.ProcessStartInfo
$psi.FileName = $Native
$psi.Arguments = ($words | ForEach-Object { ConvertTo-NativeWord $_ }) -join ' '
$psi.UseShellExecute = $false
# Same console, same arguments word for word, same exit code.
$proc = [System.Diagnostics.Process]::Start($psi)
$proc.WaitForExit()
exit $proc.ExitCode
