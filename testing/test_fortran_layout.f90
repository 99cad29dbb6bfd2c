!> test_fortran_layout.f90 -- the module `ftla` (include/ftla.f90) against ftla.h as C compiles it:
!>
!>   - every bind(C) type (ft_policy_t, ft_fault_t, ft_event_t, ft_report_t, ft_qr_model_t,
!>     ft_span_t, ft_trace_t): its size (c_sizeof) and the offset of each field (addresses by
!>     c_loc) equal sizeof / offsetof of the C struct (test_fortran_util.c), and the number of
!>     fields compared equals the number the C table lists for that struct;
!>   - the enums are C int, ft_int is c_int;
!>   - every constant of the module (status codes, devices, panels, regions, events, lanes,
!>     phases, FT_REPORT_MAX_EVENTS, FT_POLICY_SIZE_V1, FT_REPORT_SIZE_V1, the version) equals the
!>     C value, and every constant of the C table was compared.
!> Prints each mismatch; exits with status 1 when there is one.
module layout_check
    use, intrinsic :: iso_c_binding
    implicit none
    integer :: nfail = 0, nchecked = 0, nstruct = 0
    character(len=32) :: current = ''
    interface
        function ftt_c_value(name) result(v) bind(C, name='ftt_c_value')
            import :: c_char, c_long
            character(kind=c_char), intent(in) :: name(*)
            integer(c_long) :: v
        end function ftt_c_value
        function ftt_c_count(prefix) result(n) bind(C, name='ftt_c_count')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: prefix(*)
            integer(c_int) :: n
        end function ftt_c_count
    end interface
contains
    subroutine expect(name, fvalue)
        character(len=*), intent(in) :: name
        integer(c_long), intent(in) :: fvalue
        integer(c_long) :: cvalue
        cvalue = ftt_c_value(name//c_null_char)
        nchecked = nchecked + 1
        nstruct = nstruct + 1
        if (cvalue /= fvalue) then
            print '(3a, i0, a, i0)', 'MISMATCH ', name, ': Fortran ', fvalue, ', C ', cvalue
            nfail = nfail + 1
        end if
    end subroutine expect

    subroutine begin_struct(name)
        character(len=*), intent(in) :: name
        current = name
        nstruct = 0
    end subroutine begin_struct

    !> the fields compared (all but the sizeof) must be all that the C table lists
    subroutine end_struct()
        integer :: nc
        nc = ftt_c_count(trim(current)//'%'//c_null_char)
        if (nc /= nstruct - 1 .or. nc == 0) then
            print '(3a, i0, a, i0)', 'MISMATCH ', trim(current), ': fields compared ', &
                nstruct - 1, ', fields in the C table ', nc
            nfail = nfail + 1
        else
            print '(a, a, i0, a)', trim(current), ': size and ', nc, ' field offsets agree'
        end if
    end subroutine end_struct

    function addr(p) result(a)
        type(c_ptr), intent(in) :: p
        integer(c_long) :: a
        a = int(transfer(p, 0_c_intptr_t), c_long)
    end function addr
end module layout_check

program test_fortran_layout
    use ftla
    use layout_check
    implicit none
    type(ft_policy_t), target :: pol
    type(ft_fault_t), target :: flt
    type(ft_event_t), target :: ev
    type(ft_report_t), target :: rep
    type(ft_qr_model_t), target :: mdl
    type(ft_span_t), target :: spn
    type(ft_trace_t), target :: trc
    integer :: n0

    ! ft_policy_t
    call begin_struct('ft_policy_t')
    call expect('sizeof(ft_policy_t)', int(c_sizeof(pol), c_long))
    call expect('ft_policy_t%protect', addr(c_loc(pol%protect)) - addr(c_loc(pol)))
    call expect('ft_policy_t%tile', addr(c_loc(pol%tile)) - addr(c_loc(pol)))
    call expect('ft_policy_t%tol', addr(c_loc(pol%tol)) - addr(c_loc(pol)))
    call expect('ft_policy_t%backup_c', addr(c_loc(pol%backup_c)) - addr(c_loc(pol)))
    call expect('ft_policy_t%nb', addr(c_loc(pol%nb)) - addr(c_loc(pol)))
    call expect('ft_policy_t%verify_every', addr(c_loc(pol%verify_every)) - addr(c_loc(pol)))
    call expect('ft_policy_t%crossover', addr(c_loc(pol%crossover)) - addr(c_loc(pol)))
    call expect('ft_policy_t%verbose', addr(c_loc(pol%verbose)) - addr(c_loc(pol)))
    call expect('ft_policy_t%serial_encode', addr(c_loc(pol%serial_encode)) - addr(c_loc(pol)))
    call expect('ft_policy_t%operand_check', addr(c_loc(pol%operand_check)) - addr(c_loc(pol)))
    call expect('ft_policy_t%keep_input', addr(c_loc(pol%keep_input)) - addr(c_loc(pol)))
    call expect('ft_policy_t%protect_q', addr(c_loc(pol%protect_q)) - addr(c_loc(pol)))
    call expect('ft_policy_t%panel', addr(c_loc(pol%panel)) - addr(c_loc(pol)))
    call expect('ft_policy_t%error_rate', addr(c_loc(pol%error_rate)) - addr(c_loc(pol)))
    call expect('ft_policy_t%gpu_memory', addr(c_loc(pol%gpu_memory)) - addr(c_loc(pol)))
    call end_struct()
    ! ft_fault_t
    call begin_struct('ft_fault_t')
    call expect('sizeof(ft_fault_t)', int(c_sizeof(flt), c_long))
    call expect('ft_fault_t%region', addr(c_loc(flt%region)) - addr(c_loc(flt)))
    call expect('ft_fault_t%row', addr(c_loc(flt%row)) - addr(c_loc(flt)))
    call expect('ft_fault_t%col', addr(c_loc(flt%col)) - addr(c_loc(flt)))
    call expect('ft_fault_t%bit', addr(c_loc(flt%bit)) - addr(c_loc(flt)))
    call expect('ft_fault_t%value', addr(c_loc(flt%value)) - addr(c_loc(flt)))
    call expect('ft_fault_t%call', addr(c_loc(flt%call)) - addr(c_loc(flt)))
    call expect('ft_fault_t%step', addr(c_loc(flt%step)) - addr(c_loc(flt)))
    call end_struct()
    ! ft_event_t
    call begin_struct('ft_event_t')
    call expect('sizeof(ft_event_t)', int(c_sizeof(ev), c_long))
    call expect('ft_event_t%kind', addr(c_loc(ev%kind)) - addr(c_loc(ev)))
    call expect('ft_event_t%region', addr(c_loc(ev%region)) - addr(c_loc(ev)))
    call expect('ft_event_t%row', addr(c_loc(ev%row)) - addr(c_loc(ev)))
    call expect('ft_event_t%col', addr(c_loc(ev%col)) - addr(c_loc(ev)))
    call expect('ft_event_t%step', addr(c_loc(ev%step)) - addr(c_loc(ev)))
    call expect('ft_event_t%before', addr(c_loc(ev%before)) - addr(c_loc(ev)))
    call expect('ft_event_t%after', addr(c_loc(ev%after)) - addr(c_loc(ev)))
    call end_struct()
    ! ft_report_t
    call begin_struct('ft_report_t')
    call expect('sizeof(ft_report_t)', int(c_sizeof(rep), c_long))
    call expect('ft_report_t%backend', addr(c_loc(rep%backend)) - addr(c_loc(rep)))
    call expect('ft_report_t%status', addr(c_loc(rep%status)) - addr(c_loc(rep)))
    call expect('ft_report_t%injected', addr(c_loc(rep%injected)) - addr(c_loc(rep)))
    call expect('ft_report_t%detected', addr(c_loc(rep%detected)) - addr(c_loc(rep)))
    call expect('ft_report_t%located', addr(c_loc(rep%located)) - addr(c_loc(rep)))
    call expect('ft_report_t%corrected', addr(c_loc(rep%corrected)) - addr(c_loc(rep)))
    call expect('ft_report_t%uncorrectable', addr(c_loc(rep%uncorrectable)) - addr(c_loc(rep)))
    call expect('ft_report_t%checksum_errors', addr(c_loc(rep%checksum_errors)) - addr(c_loc(rep)))
    call expect('ft_report_t%recomputed', addr(c_loc(rep%recomputed)) - addr(c_loc(rep)))
    call expect('ft_report_t%unchecked', addr(c_loc(rep%unchecked)) - addr(c_loc(rep)))
    call expect('ft_report_t%checks', addr(c_loc(rep%checks)) - addr(c_loc(rep)))
    call expect('ft_report_t%time_total', addr(c_loc(rep%time_total)) - addr(c_loc(rep)))
    call expect('ft_report_t%time_protect', addr(c_loc(rep%time_protect)) - addr(c_loc(rep)))
    call expect('ft_report_t%nevents', addr(c_loc(rep%nevents)) - addr(c_loc(rep)))
    call expect('ft_report_t%events', addr(c_loc(rep%events(1))) - addr(c_loc(rep)))
    call expect('ft_report_t%recovery', addr(c_loc(rep%recovery)) - addr(c_loc(rep)))
    call expect('ft_report_t%recovered', addr(c_loc(rep%recovered)) - addr(c_loc(rep)))
    call expect('ft_report_t%refactor_col', addr(c_loc(rep%refactor_col)) - addr(c_loc(rep)))
    call expect('ft_report_t%refactor_flops', addr(c_loc(rep%refactor_flops)) - addr(c_loc(rep)))
    call expect('ft_report_t%time_recovery', addr(c_loc(rep%time_recovery)) - addr(c_loc(rep)))
    call end_struct()
    ! ft_qr_model_t
    call begin_struct('ft_qr_model_t')
    call expect('sizeof(ft_qr_model_t)', int(c_sizeof(mdl), c_long))
    call expect('ft_qr_model_t%seconds', addr(c_loc(mdl%seconds)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%panel', addr(c_loc(mdl%panel)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%nb', addr(c_loc(mdl%nb)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%lookahead', addr(c_loc(mdl%lookahead)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%verify_every', addr(c_loc(mdl%verify_every)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%seconds_depth0', addr(c_loc(mdl%seconds_depth0)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%seconds_cpu', addr(c_loc(mdl%seconds_cpu)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%seconds_gpu', addr(c_loc(mdl%seconds_gpu)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%nb_cpu', addr(c_loc(mdl%nb_cpu)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%nb_gpu', addr(c_loc(mdl%nb_gpu)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%verify_seconds', addr(c_loc(mdl%verify_seconds)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%source', addr(c_loc(mdl%source)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%calib_seconds', addr(c_loc(mdl%calib_seconds)) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%device', addr(c_loc(mdl%device(1))) - addr(c_loc(mdl)))
    call expect('ft_qr_model_t%cache', addr(c_loc(mdl%cache(1))) - addr(c_loc(mdl)))
    call end_struct()
    ! ft_span_t
    call begin_struct('ft_span_t')
    call expect('sizeof(ft_span_t)', int(c_sizeof(spn), c_long))
    call expect('ft_span_t%lane', addr(c_loc(spn%lane)) - addr(c_loc(spn)))
    call expect('ft_span_t%phase', addr(c_loc(spn%phase)) - addr(c_loc(spn)))
    call expect('ft_span_t%step', addr(c_loc(spn%step)) - addr(c_loc(spn)))
    call expect('ft_span_t%t0', addr(c_loc(spn%t0)) - addr(c_loc(spn)))
    call expect('ft_span_t%t1', addr(c_loc(spn%t1)) - addr(c_loc(spn)))
    call end_struct()
    ! ft_trace_t
    call begin_struct('ft_trace_t')
    call expect('sizeof(ft_trace_t)', int(c_sizeof(trc), c_long))
    call expect('ft_trace_t%spans', addr(c_loc(trc%spans)) - addr(c_loc(trc)))
    call expect('ft_trace_t%capacity', addr(c_loc(trc%capacity)) - addr(c_loc(trc)))
    call expect('ft_trace_t%count', addr(c_loc(trc%count)) - addr(c_loc(trc)))
    call expect('ft_trace_t%dropped', addr(c_loc(trc%dropped)) - addr(c_loc(trc)))
    call expect('ft_trace_t%total', addr(c_loc(trc%total)) - addr(c_loc(trc)))
    call end_struct()

    ! enums are C int; ft_int is C int
    call expect('sizeof(ft_device_t)', int(c_sizeof(FT_DEVICE_CPU), c_long))
    call expect('sizeof(ft_region_t)', int(c_sizeof(flt%region), c_long))
    call expect('sizeof(ft_event_kind_t)', int(c_sizeof(ev%kind), c_long))
    call expect('sizeof(ft_panel_t)', int(c_sizeof(pol%panel), c_long))
    call expect('sizeof(ft_int)', int(c_sizeof(0_ft_int), c_long))
    if (ft_int /= c_int) then
        print '(a)', 'MISMATCH ft_int is not c_int'
        nfail = nfail + 1
    end if

    ! constants
    n0 = nchecked
    call expect('FTLA_VERSION_MAJOR', int(FTLA_VERSION_MAJOR, c_long))
    call expect('FTLA_VERSION_MINOR', int(FTLA_VERSION_MINOR, c_long))
    call expect('FTLA_VERSION_PATCH', int(FTLA_VERSION_PATCH, c_long))
    call expect('FT_SUCCESS', int(FT_SUCCESS, c_long))
    call expect('FT_ERR_ALLOC', int(FT_ERR_ALLOC, c_long))
    call expect('FT_ERR_DEVICE_ALLOC', int(FT_ERR_DEVICE_ALLOC, c_long))
    call expect('FT_ERR_CUDA', int(FT_ERR_CUDA, c_long))
    call expect('FT_ERR_CUBLAS', int(FT_ERR_CUBLAS, c_long))
    call expect('FT_ERR_NO_DEVICE', int(FT_ERR_NO_DEVICE, c_long))
    call expect('FT_ERR_NOT_BUILT', int(FT_ERR_NOT_BUILT, c_long))
    call expect('FT_ERR_UNCORRECTABLE', int(FT_ERR_UNCORRECTABLE, c_long))
    call expect('FT_ERR_NOT_RECOVERED', int(FT_ERR_NOT_RECOVERED, c_long))
    call expect('FT_ERR_LAPACK', int(FT_ERR_LAPACK, c_long))
    call expect('FT_ERR_INVALID_VALUE', int(FT_ERR_INVALID_VALUE, c_long))
    call expect('FT_ERR_TOO_LARGE', int(FT_ERR_TOO_LARGE, c_long))
    call expect('FT_ERR_INTERNAL', int(FT_ERR_INTERNAL, c_long))
    call expect('FT_ERR_UNCHECKED', int(FT_ERR_UNCHECKED, c_long))
    call expect('FT_DEVICE_AUTO', int(FT_DEVICE_AUTO, c_long))
    call expect('FT_DEVICE_CPU', int(FT_DEVICE_CPU, c_long))
    call expect('FT_DEVICE_CUDA', int(FT_DEVICE_CUDA, c_long))
    call expect('FT_PANEL_AUTO', int(FT_PANEL_AUTO, c_long))
    call expect('FT_PANEL_CPU', int(FT_PANEL_CPU, c_long))
    call expect('FT_PANEL_GPU', int(FT_PANEL_GPU, c_long))
    call expect('FT_PROTECT_OFF', int(FT_PROTECT_OFF, c_long))
    call expect('FT_PROTECT_ABFT', int(FT_PROTECT_ABFT, c_long))
    call expect('FT_PROTECT_TMR', int(FT_PROTECT_TMR, c_long))
    call expect('FT_REGION_C', int(FT_REGION_C, c_long))
    call expect('FT_REGION_A', int(FT_REGION_A, c_long))
    call expect('FT_REGION_B', int(FT_REGION_B, c_long))
    call expect('FT_REGION_CHECKSUM', int(FT_REGION_CHECKSUM, c_long))
    call expect('FT_REGION_R', int(FT_REGION_R, c_long))
    call expect('FT_REGION_TRAILING', int(FT_REGION_TRAILING, c_long))
    call expect('FT_REGION_Q', int(FT_REGION_Q, c_long))
    call expect('FT_REGION_TAU', int(FT_REGION_TAU, c_long))
    call expect('FT_REGION_REFLECTORS', int(FT_REGION_REFLECTORS, c_long))
    call expect('FT_REGION_PANEL', int(FT_REGION_PANEL, c_long))
    call expect('FT_EVENT_INJECTED', int(FT_EVENT_INJECTED, c_long))
    call expect('FT_EVENT_CORRECTED', int(FT_EVENT_CORRECTED, c_long))
    call expect('FT_EVENT_RECOMPUTED', int(FT_EVENT_RECOMPUTED, c_long))
    call expect('FT_EVENT_CHECKSUM', int(FT_EVENT_CHECKSUM, c_long))
    call expect('FT_EVENT_UNCORRECTABLE', int(FT_EVENT_UNCORRECTABLE, c_long))
    call expect('FT_EVENT_LOCATED', int(FT_EVENT_LOCATED, c_long))
    call expect('FT_EVENT_RECOVERED', int(FT_EVENT_RECOVERED, c_long))
    call expect('FT_LANE_HOST', int(FT_LANE_HOST, c_long))
    call expect('FT_LANE_MAIN', int(FT_LANE_MAIN, c_long))
    call expect('FT_LANE_SIDE', int(FT_LANE_SIDE, c_long))
    call expect('FT_LANE_CHECK', int(FT_LANE_CHECK, c_long))
    call expect('FT_LANE_COPY_OUT', int(FT_LANE_COPY_OUT, c_long))
    call expect('FT_NLANES', int(FT_NLANES, c_long))
    call expect('FT_PHASE_ENCODE', int(FT_PHASE_ENCODE, c_long))
    call expect('FT_PHASE_PANEL', int(FT_PHASE_PANEL, c_long))
    call expect('FT_PHASE_LOOKAHEAD', int(FT_PHASE_LOOKAHEAD, c_long))
    call expect('FT_PHASE_UPDATE', int(FT_PHASE_UPDATE, c_long))
    call expect('FT_PHASE_CHECKSUM', int(FT_PHASE_CHECKSUM, c_long))
    call expect('FT_PHASE_ARRIVE', int(FT_PHASE_ARRIVE, c_long))
    call expect('FT_PHASE_CHECKPOINT', int(FT_PHASE_CHECKPOINT, c_long))
    call expect('FT_PHASE_AFTER', int(FT_PHASE_AFTER, c_long))
    call expect('FT_PHASE_COPY', int(FT_PHASE_COPY, c_long))
    call expect('FT_PHASE_WAIT', int(FT_PHASE_WAIT, c_long))
    call expect('FT_PHASE_CHECKS', int(FT_PHASE_CHECKS, c_long))
    call expect('FT_PHASE_ISSUE', int(FT_PHASE_ISSUE, c_long))
    call expect('FT_PHASE_SEAL', int(FT_PHASE_SEAL, c_long))
    call expect('FT_PHASE_VERIFY', int(FT_PHASE_VERIFY, c_long))
    call expect('FT_PHASE_STAGE', int(FT_PHASE_STAGE, c_long))
    call expect('FT_PHASE_RECOVER', int(FT_PHASE_RECOVER, c_long))
    call expect('FT_NPHASES', int(FT_NPHASES, c_long))
    call expect('FT_REPORT_MAX_EVENTS', int(FT_REPORT_MAX_EVENTS, c_long))
    call expect('FT_POLICY_SIZE_V1', int(FT_POLICY_SIZE_V1, c_long))
    call expect('FT_REPORT_SIZE_V1', int(FT_REPORT_SIZE_V1, c_long))
    if (ftt_c_count('FT'//c_null_char) /= nchecked - n0) then
        print '(a, i0, a, i0)', 'MISMATCH constants compared ', nchecked - n0, &
            ', constants in the C table ', ftt_c_count('FT'//c_null_char)
        nfail = nfail + 1
    else
        print '(a, i0, a)', 'constants: ', nchecked - n0, ' agree'
    end if

    print '(i0, a, i0, a)', nchecked, ' values compared, ', nfail, ' mismatches'
    if (nfail /= 0) error stop 1
end program test_fortran_layout
