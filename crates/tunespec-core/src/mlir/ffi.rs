//! Small helpers at the C API boundary.

use std::ffi::c_void;

use mlir_sys::*;

pub(super) fn string_ref(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: bytes.as_ptr() as *const _,
        length: bytes.len(),
    }
}

/// Reads an `MlirStringRef` without melior's `StringRef::as_str`, which panics on empty strings.
pub(super) unsafe fn read_string(value: MlirStringRef) -> String {
    if value.data.is_null() || value.length == 0 {
        return String::new();
    }
    // SAFETY: MLIR string refs point to `length` bytes that live at least as long as the call that
    // handed them out (identifiers and attributes live as long as the context); non-null was
    // checked, and the bytes are copied.
    let bytes = unsafe { std::slice::from_raw_parts(value.data as *const u8, value.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

pub(super) unsafe extern "C" fn append_bytes(chunk: MlirStringRef, user_data: *mut c_void) {
    // SAFETY: every caller passes `&mut Vec<u8>` of its own stack frame as `user_data`, alive and
    // not otherwise borrowed for the duration of the print call that invokes this callback.
    let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
    if !chunk.data.is_null() && chunk.length > 0 {
        // SAFETY: MLIR passes a chunk of `length` valid bytes for the duration of the callback;
        // non-null was checked; the bytes are copied.
        out.extend_from_slice(unsafe {
            std::slice::from_raw_parts(chunk.data as *const u8, chunk.length)
        });
    }
}

pub(super) fn print_with(print: impl FnOnce(MlirStringCallback, *mut c_void)) -> String {
    let mut out: Vec<u8> = Vec::new();
    print(Some(append_bytes), &mut out as *mut Vec<u8> as *mut c_void);
    String::from_utf8_lossy(&out).into_owned()
}

/// The ops directly nested in `op` (every block of every region), in order.
pub(super) fn children(op: MlirOperation) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    // SAFETY: `op` is a live op (callers reach it from a live root they borrow); regions, blocks
    // and ops are only walked, not changed.
    unsafe {
        for index in 0..mlirOperationGetNumRegions(op) {
            let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
            while !block.ptr.is_null() {
                let mut child = mlirBlockGetFirstOperation(block);
                while !child.ptr.is_null() {
                    out.push(child);
                    child = mlirOperationGetNextInBlock(child);
                }
                block = mlirBlockGetNextInRegion(block);
            }
        }
    }
    out
}
