module {
  %x = 
}
// café
